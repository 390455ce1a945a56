# bash completion for mpd-bridge(1)                       -*- shell-script -*-
#
# Completes the commands, their options and keys, files for import-opml,
# and subscription names (read from `mpd-bridge list --json`, which needs
# no MPD and no daemon) where a FEED is expected.

# The subscriptions' names, one a line: the name given, else the title,
# else the URL. The JSON is json-glib's pretty output, a member a line.
_mpd_bridge_feeds()
{
	local cmd=$1
	shift
	"$cmd" "$@" list --json 2>/dev/null | while IFS= read -r line; do
		case $line in
		*'{'*) url='' title='' name='' ;;
		*'"url" : "'*) url=${line#*'"url" : "'} url=${url%'",'} url=${url%'"'} ;;
		*'"title" : "'*) title=${line#*'"title" : "'} title=${title%'",'} title=${title%'"'} ;;
		*'"name" : "'*) name=${line#*'"name" : "'} name=${name%'",'} name=${name%'"'} ;;
		*'}'*)
			local shown=${name:-${title:-$url}}
			shown=${shown//\\\"/\"}
			shown=${shown//\\\\/\\}
			[ -n "$shown" ] && printf '%s\n' "$shown"
			;;
		esac
	done
}

# Adds the feeds that start with the word under the cursor, quoted as
# bash quotes file names (names often have spaces).
_mpd_bridge_complete_feeds()
{
	local word=$1 feed
	local -a feeds
	shift
	mapfile -t feeds < <(_mpd_bridge_feeds "$@")
	for feed in "${feeds[@]}"; do
		[[ $feed == "$word"* ]] && COMPREPLY+=("$feed")
	done
	compopt -o filenames 2>/dev/null
}

_mpd_bridge_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$1")
}

_mpd_bridge()
{
	local cur=${COMP_WORDS[COMP_CWORD]} word=$2
	local prev=${COMP_WORDS[COMP_CWORD - 1]}
	local commands='run subscribe unsubscribe list refresh set episodes
		queue mark star unstar later list-add list-remove lists status
		show chapters next-chapter previous-chapter chapter download delete
		downloads import-opml export-opml search sync sleep speed-setup alarm ping help'
	local cmd=${COMP_WORDS[0]/#\~/$HOME} i command='' first=0
	local -a config=()
	COMPREPLY=()

	# Find --config FILE and the command, and where its arguments start.
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == --config ]]; then
			config=(--config "${COMP_WORDS[i + 1]/#\~/$HOME}")
			((i++))
			continue
		fi
		command=${COMP_WORDS[i]}
		first=$((i + 1))
		break
	done

	if [[ -z $command ]]; then
		if [[ $prev == --config ]]; then
			_mpd_bridge_files "$word"
			return
		fi
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--config --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		fi
		return
	fi

	# The argument's index among the command's arguments, from 0.
	local n=$((COMP_CWORD - first))
	case $command in
	unsubscribe)
		((n == 0)) && _mpd_bridge_complete_feeds "$word" "$cmd" "${config[@]}"
		;;
	refresh)
		((n == 0)) && _mpd_bridge_complete_feeds "$word" "$cmd" "${config[@]}"
		;;
	list)
		((n == 0)) && COMPREPLY=($(compgen -W '--json' -- "$cur"))
		;;
	mark)
		((n == 0)) && COMPREPLY=($(compgen -W 'listened unlistened new' \
			-- "$cur"))
		;;
	episodes)
		if [[ $prev == --state ]]; then
			COMPREPLY=($(compgen -W 'new in-progress listened starred later' \
				-- "$cur"))
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--json --state' -- "$cur"))
		elif ((n <= 1)); then
			_mpd_bridge_complete_feeds "$word" "$cmd" "${config[@]}"
		fi
		;;
	set)
		case $n in
		0) _mpd_bridge_complete_feeds "$word" "$cmd" "${config[@]}" ;;
		1) COMPREPLY=($(compgen -W 'name auto-queue keep match exclude
			min-duration download skip-intro skip-outro skip-chapters
			fetch-chapters speed' -- "$cur")) ;;
		2) [[ $prev == auto-queue || $prev == fetch-chapters ]] &&
			COMPREPLY=($(compgen -W 'yes no' -- "$cur"))
			[[ $prev == speed ]] &&
				COMPREPLY=($(compgen -W 'default 1.25 1.5 1.75 2' -- "$cur")) ;;
		esac
		;;
	later)
		((n == 0)) && COMPREPLY=($(compgen -W 'add remove move' -- "$cur"))
		;;
	queue | star | unstar | download | delete | chapters)
		if [[ $prev == latest ]]; then
			_mpd_bridge_complete_feeds "$word" "$cmd" "${config[@]}"
		else
			COMPREPLY=($(compgen -W 'latest' -- "$cur"))
		fi
		;;
	show)
		if [[ $prev == latest ]]; then
			_mpd_bridge_complete_feeds "$word" "$cmd" "${config[@]}"
		else
			COMPREPLY=($(compgen -W 'latest --json' -- "$cur"))
		fi
		;;
	subscribe)
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W '--force' -- "$cur"))
		;;
	import-opml)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--force' -- "$cur"))
		elif ((n == 0)) || [[ $prev == --force ]]; then
			_mpd_bridge_files "$word"
		fi
		;;
	search | downloads)
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W '--json' -- "$cur"))
		;;
	sync)
		((n == 0)) && COMPREPLY=($(compgen -W 'now reset login' -- "$cur"))
		;;
	sleep)
		((n == 0)) && COMPREPLY=($(compgen -W 'end off' -- "$cur"))
		;;
	alarm)
		if ((n == 0)); then
			COMPREPLY=($(compgen -W 'list off' -- "$cur"))
		elif [[ $prev == latest ]]; then
			_mpd_bridge_complete_feeds "$word" "$cmd" "${config[@]}"
		elif ((n == 1)) && [[ $prev == *:* ]]; then
			COMPREPLY=($(compgen -W 'daily weekdays once new continue
				latest' -- "$cur"))
		elif ((n == 2)); then
			COMPREPLY=($(compgen -W 'new continue latest' -- "$cur"))
		fi
		;;
	esac
} &&
	complete -F _mpd_bridge mpd-bridge

# ex: filetype=sh
