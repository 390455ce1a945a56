/*
 * The journal beside the state file (PATH.journal): where the episodes
 * that play have got to, a line each, appended at every checkpoint
 * instead of rewriting the whole file, which at 100,000 episodes is 45 MB
 * for one changed number. A whole save folds it in and removes it; a
 * load replays it over the file. A line a crash cut short is not a line,
 * and is passed over: what is lost is at most one checkpoint.
 *
 *     position EPISODE-ID SECONDS LAST-PLAYED
 */
#include "state/store-private.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define SUFFIX ".journal"
/* A journal longer than this is not replayed: it cannot be one. */
#define MAX_BYTES (16 * 1024 * 1024)

static char *
journal_path(const BridgeStore *store)
{
	return g_strconcat(store->path, SUFFIX, NULL);
}

gboolean
bridge_store_journal_position(BridgeStore *store, const BridgeEpisode *episode,
                              guint64 *size, GError **error)
{
	g_autofree char *path = journal_path(store);
	g_autofree char *line = g_strdup_printf(
	        "position %s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n",
	        episode->id, episode->position, episode->last_played);
	struct stat st;
	int errsv;
	int fd;

	g_return_val_if_fail(store != NULL, FALSE);
	g_return_val_if_fail(episode != NULL, FALSE);

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	          0600);
	errsv = fd < 0 ? errno : bridge_store_write_all(fd, line, strlen(line));
	if (errsv == 0 && fdatasync(fd) != 0)
		errsv = errno;
	if (errsv == 0 && fstat(fd, &st) != 0)
		errsv = errno;
	if (fd >= 0 && close(fd) != 0 && errsv == 0)
		errsv = errno;
	if (errsv != 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
		            "cannot add to the state's journal %s: %s", path,
		            g_strerror(errsv));
		return FALSE;
	}
	store->stamp.journal = (guint64)st.st_size;
	if (size != NULL)
		*size = (guint64)st.st_size;
	return TRUE;
}

/* One line: its episode's position and last play, when it is one. */
static void
replay_line(BridgeStore *store, char *line)
{
	g_auto(GStrv) words = g_strsplit(line, " ", -1);
	Episode *episode;
	gint64 position, last_played;

	if (g_strv_length(words) != 4 || strcmp(words[0], "position") != 0 ||
	    !g_ascii_string_to_signed(words[2], 10, 0, G_MAXINT64, &position,
	                              NULL) ||
	    !g_ascii_string_to_signed(words[3], 10, 0, G_MAXINT64, &last_played,
	                              NULL))
		return;
	episode = g_hash_table_lookup(store->episode_ids, words[1]);
	if (episode == NULL)
		return;
	episode->pub.position = position;
	episode->pub.last_played = last_played;
}

guint64
bridge_store_journal_replay(BridgeStore *store)
{
	g_autofree char *path = journal_path(store);
	g_autofree char *text = NULL;
	gsize length = 0;
	struct stat st;
	char *line, *end;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > MAX_BYTES ||
	    !g_file_get_contents(path, &text, &length, NULL))
		return 0;
	/* Whole lines only: what follows the last line break was cut. */
	for (line = text;
	     (end = memchr(line, '\n', length - (gsize)(line - text))) != NULL;
	     line = end + 1) {
		*end = '\0';
		replay_line(store, line);
	}
	return (guint64)length;
}

guint64
bridge_store_journal_size(const BridgeStore *store)
{
	g_autofree char *path = journal_path(store);
	struct stat st;

	return stat(path, &st) == 0 ? (guint64)st.st_size : 0;
}

void
bridge_store_journal_remove(BridgeStore *store)
{
	g_autofree char *path = journal_path(store);

	if (unlink(path) != 0 && errno != ENOENT)
		g_warning("cannot remove the state's journal %s, which the "
		          "state file holds now: %s",
		          path, g_strerror(errno));
	store->stamp.journal = 0;
}
