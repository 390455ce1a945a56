/*
 * The journal beside the state file (PATH.journal): where the episodes
 * that play have got to, and whether they are listened, a line each,
 * written at every checkpoint and episode's end instead of rewriting the
 * whole file, which at 100,000 episodes is 45 MB for one changed number.
 * A whole save folds it in and removes it; a load replays it over the
 * file. A line a crash cut short is not a line, and is passed over: what
 * is lost is at most one checkpoint.
 *
 *     episode ID SECONDS LAST-PLAYED LISTENED LISTENED-AT
 *             [SYNC-CHANGED UNSENT]
 *
 * on one line. LISTENED is 1 or 0. The last two are there when the change
 * was this machine's own, for a phone sync (phone-sync.c): the stamp of
 * the change, and 1 while it is not uploaded yet, 0 once it is. Journals
 * of earlier versions have `position ID SECONDS LAST-PLAYED [SYNC-CHANGED
 * UNSENT]` lines, which are read too.
 *
 * The file grows a block of zeros at a time, and the lines go over the
 * zeros: the text ends at the first zero byte. So most checkpoints change
 * one block of the file and neither its length nor its blocks, and their
 * sync writes that block alone, where appending had the file system
 * commit new metadata each time too: 4 KiB written to the disk per
 * checkpoint instead of 8 (ext4, 200 synced lines each way).
 */
#include "state/store-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SUFFIX ".journal"
/* A journal longer than this is not replayed: it cannot be one. */
#define MAX_BYTES (16 * 1024 * 1024)
/* What the file grows by: a file system's block. */
#define BLOCK 4096

static char *
journal_path(const BridgeStore *store)
{
	return g_strconcat(store->path, SUFFIX, NULL);
}

/*
 * Writes @line at @offset of @fd, and zeros after it to the end of its
 * block when the file is shorter; 0, or the errno of what failed.
 */
static int
write_line(int fd, const char *line, gsize length, off_t offset, off_t size)
{
	g_autofree char *block = NULL;
	off_t stop = offset + (off_t)length;

	if (stop > size) {
		gsize grown =
		        (gsize)((stop + BLOCK - 1) / BLOCK * BLOCK - offset);

		block = g_malloc0(grown);
		memcpy(block, line, length);
		line = block;
		length = grown;
	}
	while (length > 0) {
		ssize_t n = pwrite(fd, line, length, offset);

		if (n < 0 && errno != EINTR)
			return errno;
		if (n > 0) {
			line += n;
			length -= (gsize)n;
			offset += n;
		}
	}
	return 0;
}

gboolean
bridge_store_journal_episode(BridgeStore *store, const BridgeEpisode *episode,
                             guint64 *size, GError **error)
{
	g_autofree char *path = journal_path(store);
	g_autofree char *line = NULL;
	gsize length;
	guint64 end = store->stamp.journal;
	struct stat st;
	int errsv = 0;
	int fd;

	g_return_val_if_fail(store != NULL, FALSE);
	g_return_val_if_fail(episode != NULL, FALSE);

	/* A phone's change (sync_from) came with a whole save. */
	if (episode->sync_from == NULL &&
	    (episode->sync_changed != 0 || episode->sync_unsent))
		line = g_strdup_printf(
		        "episode %s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
		        " %d %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %d\n",
		        episode->id, episode->position, episode->last_played,
		        episode->listened ? 1 : 0, episode->listened_at,
		        episode->sync_changed, episode->sync_unsent ? 1 : 0);
	else
		line = g_strdup_printf(
		        "episode %s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
		        " %d %" G_GINT64_FORMAT "\n",
		        episode->id, episode->position, episode->last_played,
		        episode->listened ? 1 : 0, episode->listened_at);
	length = strlen(line);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || fstat(fd, &st) != 0)
		errsv = errno;
	else
		errsv = write_line(fd, line, length, (off_t)end, st.st_size);
	if (errsv == 0 && fdatasync(fd) != 0)
		errsv = errno;
	if (fd >= 0 && close(fd) != 0 && errsv == 0)
		errsv = errno;
	if (errsv != 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
		            "cannot add to the state's journal %s: %s", path,
		            g_strerror(errsv));
		return FALSE;
	}
	store->stamp.journal = end + length;
	if (size != NULL)
		*size = store->stamp.journal;
	return TRUE;
}

static gboolean
number(const char *word, gint64 max, gint64 *out)
{
	return g_ascii_string_to_signed(word, 10, 0, max, out, NULL);
}

/* One line: what it says of its episode, when it is one. */
static void
replay_line(BridgeStore *store, char *line)
{
	g_auto(GStrv) words = g_strsplit(line, " ", -1);
	guint n = g_strv_length(words);
	/* The listened words: the older `position` line has none. */
	guint listened_words =
	        n > 0 && strcmp(words[0], "episode") == 0 ? 2 : 0;
	Episode *episode;
	gint64 position, last_played, listened = 0, listened_at = 0;
	gint64 changed = 0, unsent = 0;
	gboolean synced = n == 6 + listened_words;

	if ((n != 4 + listened_words && !synced) ||
	    (listened_words == 0 && strcmp(words[0], "position") != 0) ||
	    !number(words[2], G_MAXINT64, &position) ||
	    !number(words[3], G_MAXINT64, &last_played) ||
	    (listened_words > 0 &&
	     (!number(words[4], 1, &listened) ||
	      !number(words[5], G_MAXINT64, &listened_at))) ||
	    (synced &&
	     (!number(words[4 + listened_words], G_MAXINT64, &changed) ||
	      !number(words[5 + listened_words], 1, &unsent))))
		return;
	episode = g_hash_table_lookup(store->episode_ids, words[1]);
	if (episode == NULL)
		return;
	episode->pub.position = position;
	episode->pub.last_played = last_played;
	if (listened_words > 0) {
		episode->pub.listened = listened == 1;
		episode->pub.listened_at = listened_at;
	}
	if (synced) {
		episode->pub.sync_changed = changed;
		episode->pub.sync_unsent = unsent == 1;
		g_clear_pointer(&episode->pub.sync_from, g_free);
	}
}

/*
 * The journal's text, its whole lines ending at *@end: what follows the
 * last line break before the first zero byte was cut short, or is the
 * zeros still to be written over. NULL, with *@end 0, when there is none.
 */
static char *
read_journal(const BridgeStore *store, gsize *end)
{
	g_autofree char *path = journal_path(store);
	char *text = NULL;
	gsize length = 0;
	struct stat st;
	const char *last;

	*end = 0;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > MAX_BYTES ||
	    !g_file_get_contents(path, &text, &length, NULL))
		return NULL;
	length = strnlen(text, length);
	last = memrchr(text, '\n', length);
	*end = last != NULL ? (gsize)(last - text) + 1 : 0;
	return text;
}

guint64
bridge_store_journal_replay(BridgeStore *store)
{
	gsize length = 0;
	g_autofree char *text = read_journal(store, &length);
	char *line, *end;

	for (line = text; line != NULL && line < text + length;
	     line = end + 1) {
		end = memchr(line, '\n', length - (gsize)(line - text));
		*end = '\0';
		replay_line(store, line);
	}
	return (guint64)length;
}

guint64
bridge_store_journal_size(const BridgeStore *store)
{
	gsize length = 0;
	g_autofree char *text = read_journal(store, &length);

	return (guint64)length;
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

gboolean
bridge_store_journal_keep_after(BridgeStore *store, guint64 from,
                                GError **error)
{
	g_autofree char *path = journal_path(store);
	g_autofree char *temp = NULL;
	gsize length = 0;
	g_autofree char *text = read_journal(store, &length);
	gsize kept;
	int errsv = 0;
	int fd;

	if (text == NULL || from >= length) {
		bridge_store_journal_remove(store);
		return TRUE;
	}
	/* The lines since the save began, at the start of a file of their
	 * own, renamed over the journal. */
	kept = length - (gsize)from;
	temp = g_strconcat(path, ".saving-XXXXXX", NULL);
	fd = g_mkstemp_full(temp, O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		errsv = errno;
	else
		errsv = write_line(fd, text + from, kept, 0, 0);
	if (errsv == 0 && fdatasync(fd) != 0)
		errsv = errno;
	if (fd >= 0 && close(fd) != 0 && errsv == 0)
		errsv = errno;
	if (errsv == 0 && rename(temp, path) != 0)
		errsv = errno;
	if (errsv != 0) {
		if (fd >= 0)
			unlink(temp);
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errsv),
		            "cannot keep the newest lines of the state's "
		            "journal %s: %s",
		            path, g_strerror(errsv));
		return FALSE;
	}
	store->stamp.journal = kept;
	return TRUE;
}
