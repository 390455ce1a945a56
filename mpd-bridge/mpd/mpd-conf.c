/*
 * The syntax is MPD 0.23's (src/config/File.cxx and src/util/Tokenizer.cxx
 * in MPD's sources), checked against mpd 0.23.12 itself: what MPD refuses
 * to start with is refused here too, so that mpd-bridge never writes to a
 * directory that MPD would not read. Only setting names are not checked:
 * MPD learns new ones with each version.
 */
#include "mpd/mpd-conf.h"

#include <errno.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * MPD has no limit, and follows an include loop until it runs out of
 * open files. A loop is caught here as soon as a file comes round
 * again; the limit stops a chain of distinct files, which no one writes
 * by hand.
 */
#define MAX_INCLUDE_DEPTH 16

typedef struct {
	dev_t device;
	ino_t inode;
} FileId;

typedef struct {
	const char *wanted; /* the setting looked for */
	char *directory;    /* as written, not expanded; NULL: unset */
	char *directory_at; /* "FILE line N" that set it; NULL */
	char *user;         /* MPD's `user` setting; NULL: unset */
	char *user_at;      /* "FILE line N" that set it; NULL */
	GArray *reading; /* FileId of each file being read, outermost first */
	GPtrArray *outputs; /* the audio_output blocks as GStrv of names and
	                       values; NULL when not wanted */
	GPtrArray *output;  /* the audio_output block being read; NULL */
} Reader;

/* MPD's whitespace: every byte up to 0x20, so a CRLF's CR goes too. */
static gboolean
is_space(char c)
{
	return c != '\0' && (unsigned char)c <= 0x20;
}

static char *
skip_spaces(char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

/*
 * These parsers cut the line in place, and return NULL or what is wrong
 * (for the caller to put after the file and line).
 */
static const char *
next_name(char **cursor, const char **name)
{
	char *p = *cursor;

	if (!g_ascii_isalpha(*p))
		return "a setting's name must begin with a letter";
	*name = p;
	while (g_ascii_isalnum(*p) || *p == '_')
		p++;
	if (*p != '\0' && !is_space(*p))
		return "a setting's name holds only letters, digits and '_'";
	if (*p != '\0')
		*p++ = '\0';
	*cursor = skip_spaces(p);
	return NULL;
}

/*
 * The value of a setting and the end of its line. MPD 0.23 takes a value
 * only in double quotes, where a backslash keeps the next byte as it is.
 */
static const char *
next_value(char **cursor, const char **value)
{
	char *p = *cursor;
	char *out;

	if (*p == '\0' || *p == '#')
		return "a value is missing";
	if (*p != '"')
		return "a value must be in double quotes";
	*value = out = ++p;
	while (*p != '"') {
		if (*p == '\\')
			p++;
		if (*p == '\0')
			return "the value has no closing '\"'";
		*out++ = *p++;
	}
	p++;
	if (*p != '\0' && !is_space(*p))
		return "a space must follow the value's closing '\"'";
	*out = '\0';
	p = skip_spaces(p);
	if (*p != '\0' && *p != '#')
		return "only a comment may follow the value";
	*cursor = p;
	return NULL;
}

/*
 * MPD tells a block from a setting by its name. Of the names that matter
 * here, none opens a block, so "{" after them is a bad value, as in MPD.
 */
static gboolean
takes_value(const char *name)
{
	return strcmp(name, "include") == 0 ||
	       strcmp(name, "include_optional") == 0 ||
	       strcmp(name, "playlist_directory") == 0 ||
	       strcmp(name, "music_directory") == 0 ||
	       strcmp(name, "user") == 0;
}

/*
 * MPD (since 0.21.19) lets a later line, or an included file, override a
 * top-level setting: the last one counts.
 */
static void
set(char **value, char **at, const char *text, const char *path, guint number)
{
	g_free(*value);
	*value = g_strdup(text);
	g_free(*at);
	*at = g_strdup_printf("%s line %u", path, number);
}

static gboolean
load(Reader *reader, const char *path, const char *from, guint number,
     guint depth, GError **error);

static gboolean
include(Reader *reader, const char *from, guint number, const char *value,
        gboolean optional, guint depth, GError **error)
{
	g_autofree char *folder = g_path_get_dirname(from);
	g_autofree char *path = g_path_is_absolute(value)
	                                ? g_strdup(value)
	                                : g_build_filename(folder, value, NULL);

	/* MPD asks whether the file exists, then reads it. */
	if (optional && !g_file_test(path, G_FILE_TEST_EXISTS))
		return TRUE;
	return load(reader, path, from, number, depth + 1, error);
}

static gboolean
read_line(Reader *reader, const char *path, guint number, char *line,
          guint *block, guint depth, GError **error)
{
	char *p = skip_spaces(line);
	const char *name = NULL;
	const char *value = NULL;
	const char *wrong = NULL;

	if (*p == '\0' || *p == '#')
		return TRUE;
	if (*block != 0 && *p == '}') {
		p = skip_spaces(p + 1);
		if (*p != '\0' && *p != '#') {
			wrong = "only a comment may follow '}'";
		} else {
			*block = 0;
			if (reader->output != NULL) {
				g_ptr_array_add(reader->output, NULL);
				g_ptr_array_add(reader->outputs,
				                g_ptr_array_free(reader->output,
				                                 FALSE));
				reader->output = NULL;
			}
		}
	} else {
		wrong = next_name(&p, &name);
		if (wrong == NULL && *block == 0 && *p == '{' &&
		    !takes_value(name)) {
			p = skip_spaces(p + 1);
			if (*p != '\0' && *p != '#') {
				wrong = "only a comment may follow '{'";
			} else {
				*block = number;
				if (reader->outputs != NULL &&
				    strcmp(name, "audio_output") == 0)
					reader->output =
					        g_ptr_array_new_with_free_func(
					                g_free);
			}
			name = NULL;
		} else if (wrong == NULL) {
			wrong = next_value(&p, &value);
		}
	}
	if (wrong != NULL) {
		g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
		            "%s line %u: %s", path, number, wrong);
		return FALSE;
	}
	/* What a block holds belongs to its plugin, not to MPD's top. */
	if (name != NULL && reader->output != NULL) {
		g_ptr_array_add(reader->output, g_strdup(name));
		g_ptr_array_add(reader->output, g_strdup(value));
	}
	if (name == NULL || *block != 0)
		return TRUE;
	if (strcmp(name, "include") == 0)
		return include(reader, path, number, value, FALSE, depth,
		               error);
	if (strcmp(name, "include_optional") == 0)
		return include(reader, path, number, value, TRUE, depth, error);
	if (strcmp(name, reader->wanted) == 0)
		set(&reader->directory, &reader->directory_at, value, path,
		    number);
	else if (strcmp(name, "user") == 0)
		set(&reader->user, &reader->user_at, value, path, number);
	return TRUE;
}

static gboolean
parse(Reader *reader, const char *path, char *contents, guint depth,
      GError **error)
{
	g_auto(GStrv) lines = g_strsplit(contents, "\n", -1);
	guint block = 0; /* the line that opened the block we are in; 0 */

	for (guint i = 0; lines[i] != NULL; i++) {
		if (!read_line(reader, path, i + 1, lines[i], &block, depth,
		               error))
			return FALSE;
	}
	if (block != 0) {
		g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
		            "%s line %u: the block has no closing '}'", path,
		            block);
		return FALSE;
	}
	return TRUE;
}

/*
 * Reads @path, included from line @number of @from (NULL for the file
 * MPD starts with), @depth includes down.
 */
static gboolean
load(Reader *reader, const char *path, const char *from, guint number,
     guint depth, GError **error)
{
	g_autoptr(GError) local = NULL;
	g_autofree char *contents = NULL;
	struct stat st;
	FileId id;
	gboolean ok;

	if (stat(path, &st) != 0) {
		int saved = errno;

		g_set_error(&local, G_FILE_ERROR,
		            g_file_error_from_errno(saved),
		            "cannot read %s: %s", path, g_strerror(saved));
	} else if (!S_ISREG(st.st_mode)) {
		/* A FIFO or a device could be read forever. */
		g_set_error(&local, G_FILE_ERROR, G_FILE_ERROR_INVAL,
		            "cannot read %s: not a file", path);
	} else if (depth > MAX_INCLUDE_DEPTH) {
		g_set_error(&local, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
		            "includes nest more than %d deep at %s",
		            MAX_INCLUDE_DEPTH, path);
	} else {
		for (guint i = 0; i < reader->reading->len; i++) {
			const FileId *open =
			        &g_array_index(reader->reading, FileId, i);

			if (open->device == st.st_dev &&
			    open->inode == st.st_ino) {
				g_set_error(&local, G_KEY_FILE_ERROR,
				            G_KEY_FILE_ERROR_PARSE,
				            "an include loop: %s is already "
				            "being read",
				            path);
				break;
			}
		}
	}
	if (local == NULL)
		g_file_get_contents(path, &contents, NULL, &local);
	if (local != NULL) {
		if (from != NULL)
			g_prefix_error(&local, "%s line %u: ", from, number);
		g_propagate_error(error, g_steal_pointer(&local));
		return FALSE;
	}

	id.device = st.st_dev;
	id.inode = st.st_ino;
	g_array_append_val(reader->reading, id);
	ok = parse(reader, path, contents, depth, error);
	g_array_set_size(reader->reading, reader->reading->len - 1);
	return ok;
}

/* From the password database, as MPD looks it up; NULL: no such user. */
static char *
home_of(const char *user)
{
	long size = sysconf(_SC_GETPW_R_SIZE_MAX);
	g_autofree char *buffer = NULL;
	struct passwd entry;
	struct passwd *found = NULL;
	int status;

	if (size <= 0)
		size = 16384;
	for (;;) {
		buffer = g_realloc(buffer, (gsize)size);
		status = getpwnam_r(user, &entry, buffer, (size_t)size, &found);
		if (status != ERANGE || size >= 1024 * 1024)
			break;
		size *= 2;
	}
	if (status != 0 || found == NULL)
		return NULL;
	return g_strdup(found->pw_dir);
}

/*
 * MPD expands "~" and "~/..." to the home of its `user` (even when it
 * runs as someone else) or else to its own, and "~name/..." to name's.
 */
static char *
expand(const Reader *reader, GError **error)
{
	const char *value = reader->directory;
	const char *rest = value + 1;
	const char *slash;
	const char *at = reader->directory_at;
	g_autofree char *user = NULL;
	g_autofree char *home = NULL;

	if (value[0] != '~') {
		if (g_path_is_absolute(value))
			return g_strdup(value);
		g_set_error(error, G_KEY_FILE_ERROR,
		            G_KEY_FILE_ERROR_INVALID_VALUE,
		            "%s: %s must be an absolute path, not \"%s\"", at,
		            reader->wanted, value);
		return NULL;
	}
	slash = strchr(rest, '/');
	if (*rest == '\0' || rest == slash) {
		user = g_strdup(reader->user);
		if (user != NULL)
			at = reader->user_at;
	} else {
		user = slash != NULL ? g_strndup(rest, (gsize)(slash - rest))
		                     : g_strdup(rest);
	}
	if (user == NULL) {
		home = g_strdup(g_get_home_dir());
	} else {
		home = home_of(user);
		if (home == NULL) {
			g_set_error(error, G_KEY_FILE_ERROR,
			            G_KEY_FILE_ERROR_INVALID_VALUE,
			            "%s: no such user: %s", at, user);
			return NULL;
		}
	}
	if (slash == NULL)
		return g_steal_pointer(&home);
	return g_build_filename(home, slash + 1, NULL);
}

char *
bridge_mpd_conf_directory(const char *path, const char *name, GError **error)
{
	Reader reader = { 0 };
	char *directory = NULL;

	g_return_val_if_fail(path != NULL, NULL);
	g_return_val_if_fail(name != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	reader.wanted = name;
	reader.reading = g_array_new(FALSE, FALSE, sizeof(FileId));
	if (load(&reader, path, NULL, 0, 0, error) && reader.directory != NULL)
		directory = expand(&reader, error);
	g_array_unref(reader.reading);
	g_free(reader.directory);
	g_free(reader.directory_at);
	g_free(reader.user);
	g_free(reader.user_at);
	return directory;
}

GPtrArray *
bridge_mpd_conf_outputs(const char *path, GError **error)
{
	Reader reader = { 0 };
	g_autoptr(GPtrArray) outputs =
	        g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	gboolean ok;

	g_return_val_if_fail(path != NULL, NULL);
	g_return_val_if_fail(error == NULL || *error == NULL, NULL);

	reader.wanted = "";
	reader.reading = g_array_new(FALSE, FALSE, sizeof(FileId));
	reader.outputs = outputs;
	ok = load(&reader, path, NULL, 0, 0, error);
	if (reader.output != NULL)
		g_ptr_array_unref(reader.output);
	g_array_unref(reader.reading);
	g_free(reader.directory);
	g_free(reader.directory_at);
	g_free(reader.user);
	g_free(reader.user_at);
	return ok ? g_steal_pointer(&outputs) : NULL;
}

/*
 * MPD takes $XDG_CONFIG_HOME only when it is an absolute path to a
 * folder, else ~/.config; GLib's g_get_user_config_dir() checks neither,
 * and keeps the first answer for good.
 */
static char *
user_config_dir(void)
{
	const char *dir = g_getenv("XDG_CONFIG_HOME");

	if (dir != NULL && g_path_is_absolute(dir) &&
	    g_file_test(dir, G_FILE_TEST_IS_DIR))
		return g_strdup(dir);
	return g_build_filename(g_get_home_dir(), ".config", NULL);
}

char **
bridge_mpd_conf_candidates(void)
{
	GPtrArray *paths = g_ptr_array_new();
	g_autofree char *config_dir = user_config_dir();
	const char *home = g_get_home_dir();

	g_ptr_array_add(paths,
	                g_build_filename(config_dir, "mpd", "mpd.conf", NULL));
	g_ptr_array_add(paths, g_build_filename(home, ".mpdconf", NULL));
	g_ptr_array_add(paths,
	                g_build_filename(home, ".mpd", "mpd.conf", NULL));
	g_ptr_array_add(paths, g_strdup("/etc/mpd.conf"));
	g_ptr_array_add(paths, NULL);
	return (char **)g_ptr_array_free(paths, FALSE);
}
