/*
 * feed_duration_parse(). Unless a comment says otherwise, each expected
 * value is what podcastparser.parse_time() returns.
 */
#include <glib.h>
#include <string.h>

#include "duration-private.h"

typedef struct {
	const char *text;
	gint64 expected;
} Case;

typedef struct {
	const char *path;
	const char *summary;
	const Case *cases;
	gsize n_cases;
} Group;

static const Case hms[] = {
	{ "1:2:3", 3723 },
	{ "01:02:03", 3723 },
	{ "00:00:00", 0 },
	{ "00:00:20", 20 },
	{ "01:00:00", 3600 },
	{ "25:03:30", 90210 },
	{ "25:3:30", 90210 },
	{ "100:00:00", 360000 },
	/* Minutes and seconds are not range-checked. */
	{ "1:60:60", 7260 },
	{ "0:99:99", 6039 },
};

static const Case ms[] = {
	{ "62:03", 3723 },    { "00:00", 0 }, { "00:20", 20 },
	{ "61:08", 3668 },    { "1:2", 62 },  { "0:60", 60 },
	{ "1000:00", 60000 },
};

static const Case seconds[] = {
	{ "0", 0 },   { "128", 128 },     { "3723", 3723 },
	{ "007", 7 }, { "86400", 86400 },
};

static const Case fraction[] = {
	{ "3723.5", 3723 },       { "3723.999", 3723 }, { "61.08", 61 },
	{ "01:02:03.500", 3723 }, { "62:03.9", 3723 },  { "0.5", 0 },
};

static const Case whitespace[] = {
	{ " 03:02:01", 10921 },
	{ "25:03:30 ", 90210 },
	{ "\t\n 3723 \r\n", 3723 },
	{ "  1:2:3  ", 3723 },
};

/* Ours: podcastparser gives 0 for all of these. */
static const Case iso8601[] = {
	{ "PT1H2M3S", 3723 }, { "PT1H", 3600 },       { "PT62M3S", 3723 },
	{ "PT3723S", 3723 },  { "PT0S", 0 },          { "PT1H3S", 3603 },
	{ "pt1h2m3s", 3723 }, { " PT1H2M3S ", 3723 }, { "PT3723.5S", 3723 },
	{ "PT1M0.999S", 60 }, { "P1D", 86400 },       { "P1DT1H2M3S", 90123 },
	{ "P0DT0S", 0 },
};

static const Case limits[] = {
	/* 2^53 - 1 is the largest value kept; podcastparser keeps any. */
	{ "9007199254740991", G_GINT64_CONSTANT(9007199254740991) },
	{ "9007199254740992", 0 },
	{ "99999999999999999999999999999999", 0 },
	{ "2501999792983:36:31", G_GINT64_CONSTANT(9007199254740991) },
	{ "2501999792983:36:32", 0 },
	{ "150119987579016:11", G_GINT64_CONSTANT(9007199254740971) },
	{ "150119987579017:00", 0 },
	{ "PT2501999792983H36M31S", G_GINT64_CONSTANT(9007199254740991) },
	{ "PT2501999792983H36M32S", 0 },
	{ "P104249991374D", G_GINT64_CONSTANT(9007199254713600) },
	{ "P104249991375D", 0 },
	{ "P99999999999999999999DT1S", 0 },
};

static const Case negative[] = {
	/* podcastparser gives -5 and -3723. */
	{ "-5", 0 }, { "-3723", 0 }, { "-1:00", 0 },
	{ "-0", 0 }, { "PT-5S", 0 },
};

static const Case invalid[] = {
	{ "", 0 },
	{ " ", 0 },
	{ "abc", 0 },
	{ "unknown", 0 },
	{ "1:234", 0 },
	{ "1:2:345", 0 },
	{ "1:2:3:4", 0 },
	{ ":30", 0 },
	{ "1:", 0 },
	{ "1::2", 0 },
	{ "3723.", 0 },
	{ ".5", 0 },
	{ "1.2.3", 0 },
	{ "1:2.5:3", 0 },
	{ "1 :2", 0 },
	{ "1: 2", 0 },
	{ "12 34", 0 },
	{ "3723s", 0 },
	{ "1h", 0 },
	/* podcastparser's int() fallback takes these; the contract does not. */
	{ "+5", 0 },
	{ "1_000", 0 },
	{ "\xef\xbc\x91\xef\xbc\x92", 0 },
	/* Not ISO 8601 durations we accept. */
	{ "P", 0 },
	{ "PT", 0 },
	{ "P1DT", 0 },
	{ "T1H", 0 },
	{ "PT1H2M3", 0 },
	{ "PTH", 0 },
	{ "PT1M1H", 0 },
	{ "PT1H1H", 0 },
	{ "P1H", 0 },
	{ "PT1D", 0 },
	{ "P1M", 0 },
	{ "P1Y", 0 },
	{ "P1W", 0 },
	{ "PT1HT2M", 0 },
	{ "PT1.5H", 0 },
	{ "PT1.S", 0 },
	{ "PT.5S", 0 },
	{ "PT1,5S", 0 },
	{ "P T1H", 0 },
	{ "\xff\xfe", 0 },
};

static const Group groups[] = {
	{ "/duration/clock/hms", "H:MM:SS, with one- or two-digit fields", hms,
	  G_N_ELEMENTS(hms) },
	{ "/duration/clock/ms", "M:SS, minutes beyond 59 allowed", ms,
	  G_N_ELEMENTS(ms) },
	{ "/duration/clock/seconds", "plain seconds", seconds,
	  G_N_ELEMENTS(seconds) },
	{ "/duration/clock/fraction", "a fraction of a second is dropped",
	  fraction, G_N_ELEMENTS(fraction) },
	{ "/duration/clock/whitespace", "surrounding white space is ignored",
	  whitespace, G_N_ELEMENTS(whitespace) },
	{ "/duration/iso8601", "ISO 8601 PnDTnHnMnS", iso8601,
	  G_N_ELEMENTS(iso8601) },
	{ "/duration/limits", "values above 2^53 - 1 give 0", limits,
	  G_N_ELEMENTS(limits) },
	{ "/duration/negative", "negative values give 0", negative,
	  G_N_ELEMENTS(negative) },
	{ "/duration/invalid", "anything else gives 0", invalid,
	  G_N_ELEMENTS(invalid) },
};

static void
test_group(gconstpointer data)
{
	const Group *group = data;

	g_test_summary(group->summary);
	for (gsize i = 0; i < group->n_cases; i++) {
		const Case *c = &group->cases[i];
		gint64 got = feed_duration_parse(c->text);

		if (got != c->expected) {
			g_test_fail_printf("feed_duration_parse(\"%s\") = "
			                   "%" G_GINT64_FORMAT
			                   ", expected %" G_GINT64_FORMAT,
			                   c->text, got, c->expected);
		}
	}
}

static void
test_null(void)
{
	g_test_summary("NULL gives 0");
	g_assert_cmpint(feed_duration_parse(NULL), ==, 0);
}

static void
test_long(void)
{
	static const struct {
		const char *prefix;
		char fill;
		gint64 expected;
	} cases[] = {
		{ "", '0', 0 },
		{ "", '9', 0 },
		{ "", ' ', 0 },
		{ "1", ' ', 1 },
		{ "1:00:00.", '5', 3600 },
		{ "PT", '1', 0 },
		{ "PT0", '0', 0 },
	};

	g_test_summary("megabyte inputs neither crash nor overflow");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		gsize len = strlen(cases[i].prefix);
		gsize n = 1 << 20;
		g_autofree char *s = g_malloc(len + n + 1);
		gint64 got;

		memcpy(s, cases[i].prefix, len);
		memset(s + len, cases[i].fill, n);
		s[len + n] = '\0';
		got = feed_duration_parse(s);
		if (got != cases[i].expected) {
			g_test_fail_printf(
			        "\"%s\" + 1 MiB of '%c' = %" G_GINT64_FORMAT
			        ", expected %" G_GINT64_FORMAT,
			        cases[i].prefix, cases[i].fill, got,
			        cases[i].expected);
		}
	}
}

static void
test_ms(void)
{
	static const struct {
		const char *text;
		gint64 expected;
	} cases[] = {
		{ "37", 37000 },
		{ "7:48", 468000 },
		{ "35:12.250", 2112250 },
		{ "05:12:03.5", 18723500 },
		{ "1.0009", 1000 },
		{ "0.07", 70 },
		{ "PT1M2.25S", 62250 },
		{ "1.", 0 },
		{ "-1.5", 0 },
		{ "", 0 },
		{ NULL, 0 },
	};

	g_test_summary("chapter starts keep their fraction to the millisecond");
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		gint64 got = feed_duration_parse_ms(cases[i].text);

		if (got != cases[i].expected)
			g_test_fail_printf("feed_duration_parse_ms(\"%s\") = "
			                   "%" G_GINT64_FORMAT
			                   ", expected %" G_GINT64_FORMAT,
			                   cases[i].text, got,
			                   cases[i].expected);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	for (gsize i = 0; i < G_N_ELEMENTS(groups); i++) {
		g_test_add_data_func(groups[i].path, &groups[i], test_group);
	}
	g_test_add_func("/duration/null", test_null);
	g_test_add_func("/duration/long-input", test_long);
	g_test_add_func("/duration/milliseconds", test_ms);
	return g_test_run();
}
