/*
 * feedtool opml list: the feeds of an OPML file, a URL a line or JSON.
 * feedtool opml make: fetches feeds at once for their titles and writes
 * them as OPML, keeping those that fail under their URL.
 */
#include "opml-command.h"

#include "json-writer.h"
#include "listing.h"

#include <errno.h>
#include <feed/feed.h>
#include <feed/opml.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1, /* unreadable, not OPML, or a feed failed */
	EXIT_USAGE = 2,
};

#define DEFAULT_TITLE "feedtool subscriptions"

static int
usage_error(const char *command, const char *message)
{
	fprintf(stderr, "feedtool opml %s: %s\n", command, message);
	fprintf(stderr, "Try 'feedtool opml %s --help'.\n", command);
	return EXIT_USAGE;
}

/* Standard input, read whole; one byte past the cap lets libfeed refuse. */
static FeedOpml *
read_stdin(GError **error)
{
	g_autoptr(GByteArray) bytes = g_byte_array_new();
	guint8 buffer[64 * 1024];

	while (bytes->len <= FEED_OPML_MAX_SIZE) {
		gssize n = read(STDIN_FILENO, buffer, sizeof(buffer));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			g_set_error(error, FEED_ERROR, FEED_ERROR_IO,
			            "standard input: cannot read: %s",
			            g_strerror(saved));
			return NULL;
		}
		if (n == 0)
			break;
		g_byte_array_append(bytes, buffer, (guint)n);
	}
	return feed_opml_new_from_data((const char *)bytes->data, bytes->len,
	                               error);
}

static void
print_json(const FeedOpml *opml, JsonOut *json)
{
	json_out_begin_array(json);
	for (guint i = 0; i < feed_opml_get_n_subscriptions(opml); i++) {
		const FeedSubscription *s = feed_opml_get_subscription(opml, i);

		json_out_begin_object(json);
		json_out_key(json, "url");
		json_out_string(json, feed_subscription_get_url(s));
		json_out_key(json, "title");
		json_out_string(json, feed_subscription_get_title(s));
		json_out_key(json, "category");
		json_out_begin_array(json);
		for (const char *const *c = feed_subscription_get_category(s);
		     *c != NULL; c++)
			json_out_string(json, *c);
		json_out_end_array(json);
		json_out_member_string(json, "html_url",
		                       feed_subscription_get_html_url(s));
		json_out_end_object(json);
	}
	json_out_end_array(json);
}

static int
list_command(int argc, char **argv)
{
	gboolean json = FALSE;
	GOptionEntry entries[] = {
		{ "json", 0, 0, G_OPTION_ARG_NONE, &json,
		  "Write a JSON array of {url, title, category, html_url}",
		  NULL },
		G_OPTION_ENTRY_NULL
	};
	g_autoptr(GOptionContext) context =
	        g_option_context_new("FILE|- - list the feeds of an OPML file");
	g_autoptr(GError) error = NULL;
	g_autoptr(FeedOpml) opml = NULL;

	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_set_summary(
	        context, "Reads the subscriptions of an OPML file, as podcast "
	                 "apps export them,\nand prints their feed URLs, one "
	                 "a line, or JSON with --json.");
	if (!g_option_context_parse(context, &argc, &argv, &error))
		return usage_error("list", error->message);
	if (argc != 2)
		return usage_error("list", "give exactly one FILE, or - for "
		                           "standard input");
	if (strcmp(argv[1], "-") == 0)
		opml = read_stdin(&error);
	else
		opml = feed_opml_new_from_file(argv[1], &error);
	if (opml == NULL) {
		/* libfeed's messages name the file. */
		fprintf(stderr, "feedtool: %s\n", error->message);
		return EXIT_FAILED;
	}
	if (json) {
		JsonOut *out = json_out_new(stdout);

		print_json(opml, out);
		if (!json_out_finish(out, &error)) {
			fprintf(stderr, "feedtool: %s\n", error->message);
			return EXIT_FAILED;
		}
		return EXIT_OK;
	}
	for (guint i = 0; i < feed_opml_get_n_subscriptions(opml); i++) {
		g_autofree char *url =
		        listing_sanitize(feed_subscription_get_url(
		                feed_opml_get_subscription(opml, i)));

		printf("%s\n", url);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "feedtool: cannot write the output: %s\n",
		        g_strerror(errno));
		return EXIT_FAILED;
	}
	return EXIT_OK;
}

typedef struct {
	GMainLoop *loop;
	guint pending;
	guint failed;
} Make;

/* One URL from the command line, and what its fetch found. */
typedef struct {
	Make *make;
	char *url;      /* as given */
	char *feed_url; /* the one to subscribe to; NULL until fetched */
	char *title;    /* NULL until fetched */
	char *html_url; /* NULL when the feed has no link */
} Entry;

static void
entry_free(gpointer data)
{
	Entry *entry = data;

	g_free(entry->url);
	g_free(entry->feed_url);
	g_free(entry->title);
	g_free(entry->html_url);
	g_free(entry);
}

/* Only the title is wanted: episodes are dropped as they are parsed. */
static void
drop_episode(FeedEpisode *episode, gpointer data)
{
}

static void
warn_failed(const Entry *entry, const GError *error)
{
	g_autofree char *message = listing_sanitize(error->message);
	g_autofree char *url = listing_sanitize(entry->url);

	/* The fetcher's messages begin with the URL; others do not. */
	if (g_str_has_prefix(error->message, entry->url))
		fprintf(stderr,
		        "feedtool: warning: %s (kept, titled by its "
		        "URL)\n",
		        message);
	else
		fprintf(stderr,
		        "feedtool: warning: %s: %s (kept, titled by its URL)\n",
		        url, message);
}

static void
on_fetched(FeedFetchResult *result, const GError *error, gpointer data)
{
	Entry *entry = data;
	Make *make = entry->make;
	FeedChannel *channel =
	        error == NULL ? feed_fetch_result_get_channel(result) : NULL;

	if (channel == NULL) {
		GError *none = NULL;

		if (error == NULL)
			none = g_error_new(FEED_ERROR, FEED_ERROR_FAILED,
			                   "%s: the server sent no feed",
			                   entry->url);
		warn_failed(entry, error != NULL ? error : none);
		g_clear_error(&none);
		make->failed++;
		entry->feed_url = g_strdup(entry->url);
		entry->title = g_strdup(entry->url);
	} else {
		const char *discovered =
		        feed_fetch_result_get_discovered_url(result);
		const char *title = feed_channel_get_title(channel);

		/* A web page's feed, or a feed's new permanent home. */
		if (discovered != NULL)
			entry->feed_url = g_strdup(discovered);
		else if (feed_fetch_result_is_moved(result))
			entry->feed_url = g_strdup(
			        feed_fetch_result_get_final_url(result));
		else
			entry->feed_url = g_strdup(entry->url);
		entry->title = g_strdup(*title != '\0' ? title : entry->url);
		entry->html_url = g_strdup(feed_channel_get_link(channel));
	}
	if (--make->pending == 0)
		g_main_loop_quit(make->loop);
}

/* The URLs once each, trimmed, in the order given. */
static GPtrArray *
collect_entries(Make *make, char **args)
{
	GPtrArray *entries = g_ptr_array_new_with_free_func(entry_free);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

	for (; args != NULL && *args != NULL; args++) {
		g_autofree char *url = g_strstrip(g_strdup(*args));
		Entry *entry;

		if (*url == '\0' || g_hash_table_contains(seen, url))
			continue;
		entry = g_new0(Entry, 1);
		entry->make = make;
		entry->url = g_steal_pointer(&url);
		g_hash_table_add(seen, entry->url);
		g_ptr_array_add(entries, entry);
	}
	return entries;
}

static void
fetch_all(Make *make, GPtrArray *entries)
{
	g_autoptr(FeedFetcher) fetcher = feed_fetcher_new(NULL);

	make->loop = g_main_loop_new(NULL, FALSE);
	make->pending = entries->len;
	for (guint i = 0; i < entries->len; i++) {
		Entry *entry = entries->pdata[i];
		g_autoptr(FeedFetchRequest) request =
		        feed_fetch_request_new(entry->url);

		/* The user named each URL, so file:// is theirs to give. */
		feed_fetch_request_set_flags(request, FEED_FETCH_ALLOW_FILE);
		feed_fetch_request_set_episode_func(request, drop_episode,
		                                    NULL);
		feed_fetcher_fetch(fetcher, request, NULL, on_fetched, entry);
	}
	if (make->pending > 0)
		g_main_loop_run(make->loop);
	g_main_loop_unref(make->loop);
}

static gboolean
write_output(const char *text, const char *output, GError **error)
{
	if (output == NULL || strcmp(output, "-") == 0) {
		if (fputs(text, stdout) < 0 || fflush(stdout) != 0) {
			int saved = errno;

			g_set_error(error, G_FILE_ERROR,
			            g_file_error_from_errno(saved),
			            "cannot write the output: %s",
			            g_strerror(saved));
			return FALSE;
		}
		return TRUE;
	}
	if (!g_file_set_contents(output, text, -1, error)) {
		g_prefix_error(error, "cannot write %s: ", output);
		return FALSE;
	}
	return TRUE;
}

static int
make_command(int argc, char **argv)
{
	g_autofree char *output = NULL;
	g_autofree char *title = NULL;
	g_auto(GStrv) args = NULL;
	GOptionEntry entries[] = {
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		  "Write the OPML to FILE instead of standard output", "FILE" },
		{ "title", 0, 0, G_OPTION_ARG_STRING, &title,
		  "The list's title (default \"" DEFAULT_TITLE "\")", "T" },
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &args,
		  NULL, "URL…" },
		G_OPTION_ENTRY_NULL
	};
	g_autoptr(GOptionContext) context =
	        g_option_context_new("URL… - make an OPML file of feeds");
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) list = NULL;
	g_autoptr(FeedOpml) opml = NULL;
	g_autofree char *text = NULL;
	Make make = { 0 };

	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_set_summary(
	        context, "Fetches each feed, all at once, for its title and "
	                 "writes an OPML 2.0\nsubscription list that podcast "
	                 "apps import. A feed that fails is kept,\ntitled by "
	                 "its URL, with a warning, and the exit status is 1.");
	if (!g_option_context_parse(context, &argc, &argv, &error))
		return usage_error("make", error->message);
	list = collect_entries(&make, args);
	if (list->len == 0)
		return usage_error("make", "give at least one URL");

	fetch_all(&make, list);
	opml = feed_opml_new(title != NULL ? title : DEFAULT_TITLE);
	for (guint i = 0; i < list->len; i++) {
		const Entry *entry = list->pdata[i];

		feed_opml_add(opml, entry->feed_url, entry->title, NULL,
		              entry->html_url);
	}
	text = feed_opml_to_string(opml);
	if (!write_output(text, output, &error)) {
		fprintf(stderr, "feedtool: %s\n", error->message);
		return EXIT_FAILED;
	}
	return make.failed > 0 ? EXIT_FAILED : EXIT_OK;
}

static void
usage(FILE *out)
{
	fprintf(out,
	        "Usage: feedtool opml COMMAND [OPTION…]\n"
	        "\n"
	        "Commands:\n"
	        "  list [--json] FILE|-\n"
	        "      print the feed URLs of an OPML file, one a line, or "
	        "JSON\n"
	        "  make [-o FILE] [--title T] URL…\n"
	        "      fetch feeds for their titles and write them as OPML\n"
	        "\n"
	        "'feedtool opml COMMAND --help' describes a command's "
	        "options.\n");
}

int
opml_command(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "list") == 0)
		return list_command(argc - 1, argv + 1);
	if (strcmp(argv[1], "make") == 0)
		return make_command(argc - 1, argv + 1);
	fprintf(stderr, "feedtool opml: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
