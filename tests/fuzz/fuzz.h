/*
 * What every fuzz target shares: the two entry points libFuzzer calls (and
 * driver.c, when the target runs as an ordinary test), and small helpers.
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs one input; returns 0. Aborts when the input finds a bug. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Called once, before the first input. */
int
LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * A critical is a failed g_return_if_fail(), and libfeed logs nothing
 * above debug: either is a bug the input found, so it aborts, and the
 * fuzzer keeps the input. The rest would only slow the fuzzer down.
 */
static inline GLogWriterOutput
fuzz_log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                gpointer user_data)
{
	if ((level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL |
	              G_LOG_LEVEL_WARNING)) == 0)
		return G_LOG_WRITER_HANDLED;
	g_log_writer_default(level, fields, n_fields, user_data);
	abort();
}

static inline void
fuzz_init_log(void)
{
	g_log_set_writer_func(fuzz_log_writer, NULL, NULL);
}

/* Stops the process on a broken promise; libFuzzer keeps the input. */
#define fuzz_check(condition, ...)                                             \
	do {                                                                   \
		if (!(condition)) {                                            \
			fprintf(stderr,                                        \
			        "fuzz_check(%s) failed: ", #condition);        \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* The input as a C string, which ends at its first NUL if it has one. */
static inline char *
fuzz_dup_string(const uint8_t *data, size_t size)
{
	char *text = g_malloc(size + 1);

	if (size > 0)
		memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* Checks a string the API promises to be valid UTF-8 (NULL passes). */
static inline void
fuzz_check_utf8(const char *what, const char *text)
{
	fuzz_check(text == NULL || g_utf8_validate(text, -1, NULL),
	           "%s is not valid UTF-8", what);
}

/*
 * A directory of the process's own for targets that need files, removed
 * at exit. Each input overwrites the same few files in it.
 */
static char *fuzz_temp_path;

static inline void
fuzz_remove_temp_dir(void)
{
	GDir *dir = g_dir_open(fuzz_temp_path, 0, NULL);
	const char *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *path =
		        g_build_filename(fuzz_temp_path, name, NULL);

		g_remove(path);
	}
	if (dir != NULL)
		g_dir_close(dir);
	g_rmdir(fuzz_temp_path);
	g_clear_pointer(&fuzz_temp_path, g_free);
}

static inline const char *
fuzz_temp_dir(void)
{
	g_autoptr(GError) error = NULL;

	if (fuzz_temp_path != NULL)
		return fuzz_temp_path;
	fuzz_temp_path = g_dir_make_tmp("fuzz-XXXXXX", &error);
	fuzz_check(fuzz_temp_path != NULL, "%s", error->message);
	atexit(fuzz_remove_temp_dir);
	return fuzz_temp_path;
}

/* Writes @data to @name in the temp directory; returns the file's path. */
static inline char *
fuzz_write_temp(const char *name, const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	char *path = g_build_filename(fuzz_temp_dir(), name, NULL);

	/* No fsync: the file is scratch, and the fuzzer's speed matters. */
	fuzz_check(g_file_set_contents_full(
	                   path, (const char *)data, (gssize)size,
	                   G_FILE_SET_CONTENTS_NONE, 0600, &error),
	           "%s", error->message);
	return path;
}

#endif
