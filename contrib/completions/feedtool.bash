# bash completion for feedtool(1)                         -*- shell-script -*-
#
# Completes the commands, their options, the values of --format and
# --media, and files where a FILE, a FEED or a DIR is expected.

_feedtool_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$1")
}

_feedtool_dirs()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -d -- "$1")
}

_feedtool()
{
	local cur=${COMP_WORDS[COMP_CWORD]} word=$2
	local prev=${COMP_WORDS[COMP_CWORD - 1]}
	local command=${COMP_WORDS[1]} options
	COMPREPLY=()

	# --option=value: bash splits it at the '='.
	if [[ $cur == = ]]; then
		cur='' word=''
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	elif [[ $prev == = ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W 'parse refresh playlist chapters opml download
			--help --version' -- "$cur"))
		return
	fi
	if [[ $command == opml ]]; then
		if ((COMP_CWORD == 2)); then
			COMPREPLY=($(compgen -W 'list make --help' -- "$cur"))
			return
		fi
		command="opml ${COMP_WORDS[2]}"
	fi

	case $command in
	parse)
		case $prev in
		--base-url) return ;;
		esac
		options='--json --base-url --help'
		;;
	refresh)
		case $prev in
		-j | --jobs | --timeout | --stall-timeout) return ;;
		--cache) _feedtool_dirs "$word"; return ;;
		--urls) _feedtool_files "$word"; return ;;
		esac
		# URLs: nothing to complete but the options.
		COMPREPLY=($(compgen -W '--jobs --cache --json --urls --timeout
			--stall-timeout --help' -- "$cur"))
		return
		;;
	playlist)
		case $prev in
		-f | --format)
			COMPREPLY=($(compgen -W 'm3u xspf pls' -- "$cur"))
			return
			;;
		--media)
			COMPREPLY=($(compgen -W 'audio video any' -- "$cur"))
			return
			;;
		-o | --output) _feedtool_files "$word"; return ;;
		-n | --newest | --since | --match | --exclude | --min-duration)
			return
			;;
		esac
		options='--format --newest --oldest-first --since --match
			--exclude --min-duration --media --output --help'
		;;
	chapters)
		# FEED, then EPISODE: a GUID, a number or latest.
		local words=0 i
		for ((i = 2; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == -* ]] || words=$((words + 1))
		done
		if [[ $cur != -* ]] && ((words == 1)); then
			COMPREPLY=($(compgen -W 'latest' -- "$cur"))
			return
		fi
		options='--json --no-fetch --help'
		;;
	'opml list')
		options='--json --help'
		;;
	'opml make')
		case $prev in
		-o | --output) _feedtool_files "$word"; return ;;
		--title) return ;;
		esac
		COMPREPLY=($(compgen -W '--output --title --help' -- "$cur"))
		return
		;;
	download)
		case $prev in
		-o | --output) _feedtool_files "$word"; return ;;
		esac
		# A URL: nothing to complete but the options.
		COMPREPLY=($(compgen -W '--output --help' -- "$cur"))
		return
		;;
	*)
		return
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$options" -- "$cur"))
	else
		_feedtool_files "$word"
	fi
} &&
	complete -F _feedtool feedtool

# ex: filetype=sh
