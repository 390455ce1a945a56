/*
 * What a download makes of a response (Content-Range, If-Range's
 * validator, web pages and texts) and its partial file on disk: links,
 * FIFOs and notes of other URLs. No network.
 */
#include "download-private.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
	const char *name;
	const char *value;
	gboolean ok;
	gboolean satisfied;
	guint64 first, last, total;
} RangeCase;

static const RangeCase range_cases[] = {
	{ "range", "bytes 100-199/1000", TRUE, TRUE, 100, 199, 1000 },
	{ "whole", "bytes 0-999/1000", TRUE, TRUE, 0, 999, 1000 },
	{ "unknown-total", "bytes 5-9/*", TRUE, TRUE, 5, 9, 0 },
	{ "unsatisfied", "bytes */1000", TRUE, FALSE, 0, 0, 1000 },
	{ "case", "Bytes 1-1/2", TRUE, TRUE, 1, 1, 2 },
	{ "large", "bytes 4294967296-8589934591/8589934592", TRUE, TRUE,
	  4294967296, 8589934591, 8589934592 },
	{ "last-past-total", "bytes 0-1000/1000", FALSE },
	{ "last-before-first", "bytes 9-5/100", FALSE },
	{ "unsatisfied-unknown", "bytes */*", FALSE },
	{ "no-unit", "100-199/1000", FALSE },
	{ "other-unit", "items 1-2/3", FALSE },
	{ "no-slash", "bytes 1-2", FALSE },
	{ "no-dash", "bytes 12/100", FALSE },
	{ "sign", "bytes -1-2/100", FALSE },
	{ "plus", "bytes +1-2/100", FALSE },
	{ "empty", "", FALSE },
};

static void
test_content_range(gconstpointer data)
{
	const RangeCase *c = data;
	ContentRange range;

	g_assert_cmpint(feed_content_range_parse(c->value, &range), ==, c->ok);
	if (!c->ok)
		return;
	g_assert_cmpint(range.satisfied, ==, c->satisfied);
	g_assert_cmpuint(range.first, ==, c->first);
	g_assert_cmpuint(range.last, ==, c->last);
	g_assert_cmpuint(range.total, ==, c->total);
}

static void
test_content_range_null(void)
{
	ContentRange range;

	g_assert_false(feed_content_range_parse(NULL, &range));
}

typedef struct {
	const char *name;
	const char *data;
	gboolean html;
} SniffCase;

static const SniffCase sniff_cases[] = {
	{ "doctype", "<!DOCTYPE html>\n<html>", TRUE },
	{ "doctype-lower", "<!doctype html>", TRUE },
	{ "html", "<html lang=en>", TRUE },
	{ "html-upper", "<HTML>", TRUE },
	{ "white-space", " \r\n\t <html>", TRUE },
	{ "bom", "\xEF\xBB\xBF<!DOCTYPE HTML>", TRUE },
	{ "bom-space", "\xEF\xBB\xBF\n  <html>", TRUE },
	{ "id3", "ID3\x04\x00\x00\x00\x00\x00\x00<html>", FALSE },
	{ "ogg", "OggS\x00\x02", FALSE },
	{ "xml", "<?xml version=\"1.0\"?><rss>", FALSE },
	{ "short", "<htm", FALSE },
	{ "empty", "", FALSE },
	{ "text", "Please sign in", FALSE },
};

static void
test_sniff(gconstpointer data)
{
	const SniffCase *c = data;

	g_assert_cmpint(feed_download_looks_like_html(c->data, strlen(c->data)),
	                ==, c->html);
}

static void
test_sniff_length(void)
{
	/* Only the given bytes count, not what follows them. */
	g_assert_false(feed_download_looks_like_html("<html>", 4));
	g_assert_true(feed_download_looks_like_html("<html>", 5));
}

static void
test_text_type(void)
{
	g_assert_true(feed_download_is_text_type("text/plain"));
	g_assert_true(feed_download_is_text_type("TEXT/html; charset=utf-8"));
	g_assert_false(feed_download_is_text_type("audio/mpeg"));
	g_assert_false(feed_download_is_text_type("application/text"));
	g_assert_false(feed_download_is_text_type(NULL));
}

static void
test_validator(void)
{
	const char *date = "Wed, 01 Jan 2025 00:00:00 GMT";

	g_assert_cmpstr(feed_transfer_pick_validator("\"a1\"", date), ==,
	                "\"a1\"");
	/* RFC 9110 13.1.5: never a weak entity tag in If-Range. */
	g_assert_cmpstr(feed_transfer_pick_validator("W/\"a1\"", date), ==,
	                date);
	g_assert_null(feed_transfer_pick_validator("W/\"a1\"", NULL));
	g_assert_cmpstr(feed_transfer_pick_validator(NULL, date), ==, date);
	g_assert_null(feed_transfer_pick_validator(NULL, ""));
	g_assert_null(feed_transfer_pick_validator(NULL, NULL));
}

/* The partial file */

typedef struct {
	char *dir;
	char *path;
	Partial partial;
} Fixture;

static void
fixture_setup(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("test-download-XXXXXX", &error);
	g_assert_no_error(error);
	fx->path = g_build_filename(fx->dir, "episode.mp3", NULL);
	feed_partial_init(&fx->partial, fx->path);
}

static void
fixture_teardown(Fixture *fx, gconstpointer data)
{
	g_autoptr(GDir) dir = g_dir_open(fx->dir, 0, NULL);
	const char *name;

	feed_partial_clear(&fx->partial);
	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree char *child = g_build_filename(fx->dir, name, NULL);

		g_remove(child);
	}
	g_rmdir(fx->dir);
	g_free(fx->dir);
	g_free(fx->path);
}

static char *
read_all(const char *path)
{
	char *data = NULL;

	if (!g_file_get_contents(path, &data, NULL, NULL))
		return NULL;
	return data;
}

static void
write_all(const char *path, const char *data)
{
	g_autoptr(GError) error = NULL;

	g_file_set_contents(path, data, -1, &error);
	g_assert_no_error(error);
}

static void
test_partial_round_trip(Fixture *fx, gconstpointer data)
{
	PartialInfo info = { (char *)"http://example.com/e.mp3",
		             (char *)"\"v1\"", 10 };
	PartialInfo found = { 0 };
	g_autoptr(GError) error = NULL;
	g_autofree char *whole = NULL;
	Partial again;

	g_test_summary("Bytes written with a note are found again by the "
	               "same URL only, and the commit puts them at PATH.");
	g_assert_true(feed_partial_open(&fx->partial, 0, &info, &error));
	g_assert_no_error(error);
	g_assert_true(feed_partial_write(&fx->partial, "01234", 5, &error));
	feed_partial_close(&fx->partial);

	feed_partial_init(&again, fx->path);
	g_assert_false(feed_partial_find(&again, "http://example.com/other.mp3",
	                                 &found));
	g_assert_null(found.url);
	g_assert_true(
	        feed_partial_find(&again, "http://example.com/e.mp3", &found));
	g_assert_cmpstr(found.validator, ==, "\"v1\"");
	g_assert_cmpuint(found.total, ==, 10);
	g_assert_cmpuint(again.size, ==, 5);
	feed_partial_info_clear(&found);

	g_assert_true(feed_partial_open(&again, 5, NULL, &error));
	g_assert_true(feed_partial_write(&again, "56789", 5, &error));
	g_assert_true(feed_partial_commit(&again, &error));
	g_assert_no_error(error);
	feed_partial_clear(&again);
	whole = read_all(fx->path);
	g_assert_cmpstr(whole, ==, "0123456789");
	g_assert_false(g_file_test(fx->partial.part_path, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(fx->partial.info_path, G_FILE_TEST_EXISTS));
}

static void
test_partial_more_than_total(Fixture *fx, gconstpointer data)
{
	PartialInfo found = { 0 };

	g_test_summary("A partial file longer than its note's total is not "
	               "resumed.");
	write_all(fx->partial.part_path, "0123456789");
	write_all(fx->partial.info_path, "[download]\nurl=http://e/x\n"
	                                 "validator=\"v\"\ntotal=5\n");
	g_assert_false(feed_partial_find(&fx->partial, "http://e/x", &found));
}

static void
test_partial_no_validator(Fixture *fx, gconstpointer data)
{
	PartialInfo found = { 0 };

	g_test_summary("A note without a validator resumes nothing.");
	write_all(fx->partial.part_path, "0123456789");
	write_all(fx->partial.info_path, "[download]\nurl=http://e/x\n");
	g_assert_false(feed_partial_find(&fx->partial, "http://e/x", &found));
}

static void
test_partial_linked_note(Fixture *fx, gconstpointer data)
{
	g_autofree char *elsewhere = g_build_filename(fx->dir, "note", NULL);
	PartialInfo found = { 0 };

	g_test_summary("A note that is a link is not read.");
	write_all(fx->partial.part_path, "0123456789");
	write_all(elsewhere, "[download]\nurl=http://e/x\nvalidator=\"v\"\n");
	g_assert_cmpint(symlink(elsewhere, fx->partial.info_path), ==, 0);
	g_assert_false(feed_partial_find(&fx->partial, "http://e/x", &found));
}

static void
test_partial_link(Fixture *fx, gconstpointer data)
{
	g_autofree char *victim = g_build_filename(fx->dir, "victim", NULL);
	g_autofree char *kept = NULL;
	g_autoptr(GError) error = NULL;
	GStatBuf st;

	g_test_summary("A link at PATH.part is removed, not written "
	               "through, also when resuming would follow it.");
	write_all(victim, "keep");
	g_assert_cmpint(symlink(victim, fx->partial.part_path), ==, 0);
	g_assert_true(feed_partial_open(&fx->partial, 0, NULL, &error));
	g_assert_no_error(error);
	g_assert_true(feed_partial_write(&fx->partial, "new", 3, &error));
	feed_partial_close(&fx->partial);
	kept = read_all(victim);
	g_assert_cmpstr(kept, ==, "keep");
	g_assert_cmpint(g_lstat(fx->partial.part_path, &st), ==, 0);
	g_assert_true(S_ISREG(st.st_mode));
}

static void
test_partial_fifo(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	g_test_summary("A FIFO at PATH.part fails at once; opening it does "
	               "not wait for a reader.");
	g_assert_cmpint(mkfifo(fx->partial.part_path, 0644), ==, 0);
	g_assert_false(feed_partial_open(&fx->partial, 0, NULL, &error));
	g_assert_nonnull(error);
	g_assert_true(strstr(error->message, fx->partial.part_path) != NULL);
}

static void
test_partial_shrank(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	g_test_summary("Resuming past the end of the partial file fails with "
	               "G_IO_ERROR_INVALID_DATA, so the caller restarts.");
	write_all(fx->partial.part_path, "0123");
	g_assert_false(feed_partial_open(&fx->partial, 10, NULL, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

static void
test_partial_cuts_extra(Fixture *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *text = NULL;

	g_test_summary("Bytes past the resume point are dropped; from 0 the "
	               "file is emptied and the old note removed.");
	write_all(fx->partial.part_path, "0123456789");
	g_assert_true(feed_partial_open(&fx->partial, 4, NULL, &error));
	g_assert_true(feed_partial_write(&fx->partial, "xy", 2, &error));
	feed_partial_close(&fx->partial);
	text = read_all(fx->partial.part_path);
	g_assert_cmpstr(text, ==, "0123xy");
	g_clear_pointer(&text, g_free);

	write_all(fx->partial.info_path, "[download]\nurl=http://e/x\n"
	                                 "validator=\"old\"\n");
	g_assert_true(feed_partial_open(&fx->partial, 0, NULL, &error));
	feed_partial_close(&fx->partial);
	text = read_all(fx->partial.part_path);
	g_assert_cmpstr(text, ==, "");
	g_assert_false(g_file_test(fx->partial.info_path, G_FILE_TEST_EXISTS));
}

static void
test_partial_commit_over_link(Fixture *fx, gconstpointer data)
{
	g_autofree char *victim = g_build_filename(fx->dir, "victim", NULL);
	g_autofree char *kept = NULL;
	g_autoptr(GError) error = NULL;
	GStatBuf st;

	g_test_summary("The commit replaces a link at PATH; what it points "
	               "to stays.");
	write_all(victim, "keep");
	g_assert_cmpint(symlink(victim, fx->path), ==, 0);
	g_assert_true(feed_partial_open(&fx->partial, 0, NULL, &error));
	g_assert_true(feed_partial_write(&fx->partial, "new", 3, &error));
	g_assert_true(feed_partial_commit(&fx->partial, &error));
	g_assert_no_error(error);
	kept = read_all(victim);
	g_assert_cmpstr(kept, ==, "keep");
	g_assert_cmpint(g_lstat(fx->path, &st), ==, 0);
	g_assert_true(S_ISREG(st.st_mode));
}

static void
test_partial_discard(Fixture *fx, gconstpointer data)
{
	PartialInfo info = { (char *)"http://e/x", (char *)"\"v\"", 0 };
	g_autoptr(GError) error = NULL;

	g_test_summary("Discarding removes the partial file and its note.");
	g_assert_true(feed_partial_open(&fx->partial, 0, &info, &error));
	g_assert_true(g_file_test(fx->partial.info_path, G_FILE_TEST_EXISTS));
	feed_partial_discard(&fx->partial);
	g_assert_false(g_file_test(fx->partial.part_path, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(fx->partial.info_path, G_FILE_TEST_EXISTS));
	g_assert_cmpint(fx->partial.fd, ==, -1);
}

#define ADD(path, func)                                                        \
	g_test_add(path, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

	for (guint i = 0; i < G_N_ELEMENTS(range_cases); i++) {
		g_autofree char *path = g_strdup_printf(
		        "/download/content-range/%s", range_cases[i].name);

		g_test_add_data_func(path, &range_cases[i], test_content_range);
	}
	g_test_add_func("/download/content-range/null",
	                test_content_range_null);
	for (guint i = 0; i < G_N_ELEMENTS(sniff_cases); i++) {
		g_autofree char *path = g_strdup_printf("/download/sniff/%s",
		                                        sniff_cases[i].name);

		g_test_add_data_func(path, &sniff_cases[i], test_sniff);
	}
	g_test_add_func("/download/sniff/length", test_sniff_length);
	g_test_add_func("/download/text-type", test_text_type);
	g_test_add_func("/download/validator", test_validator);
	ADD("/download/partial/round-trip", test_partial_round_trip);
	ADD("/download/partial/more-than-total", test_partial_more_than_total);
	ADD("/download/partial/no-validator", test_partial_no_validator);
	ADD("/download/partial/linked-note", test_partial_linked_note);
	ADD("/download/partial/link", test_partial_link);
	ADD("/download/partial/fifo", test_partial_fifo);
	ADD("/download/partial/shrank", test_partial_shrank);
	ADD("/download/partial/cuts-extra", test_partial_cuts_extra);
	ADD("/download/partial/commit-over-link",
	    test_partial_commit_over_link);
	ADD("/download/partial/discard", test_partial_discard);
	return g_test_run();
}
