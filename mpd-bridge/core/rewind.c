/*
 * Rewind steps read in the C locale, whole numbers only, so that a step
 * means the same everywhere.
 */
#include "core/rewind.h"

void
bridge_rewind_init_default(BridgeRewind *rewind)
{
	static const BridgeRewindStep steps[] = {
		{ 60, 3 },
		{ 3600, 10 },
		{ 86400, 20 },
	};

	g_return_if_fail(rewind != NULL);

	for (guint i = 0; i < G_N_ELEMENTS(steps); i++)
		rewind->steps[i] = steps[i];
	rewind->n_steps = G_N_ELEMENTS(steps);
}

/* Digits at *@p, no more than @limit; *@p ends past them. */
static gboolean
read_number(const char **p, guint64 limit, guint64 *value)
{
	guint64 number = 0;

	if (!g_ascii_isdigit(**p))
		return FALSE;
	while (g_ascii_isdigit(**p)) {
		number = number * 10 + (guint64)(**p - '0');
		if (number > limit)
			return FALSE;
		(*p)++;
	}
	*value = number;
	return TRUE;
}

/* "1m:3", "90:5s", "1d:20". */
static gboolean
parse_step(const char *word, BridgeRewindStep *step)
{
	const char *p = word;
	guint64 pause;
	guint64 back;
	guint64 unit = 1;

	if (!read_number(&p, BRIDGE_REWIND_MAX_PAUSE, &pause))
		return FALSE;
	if (*p == 'm')
		unit = 60;
	else if (*p == 'h')
		unit = 3600;
	else if (*p == 'd')
		unit = 86400;
	if (*p == 's' || unit > 1)
		p++;
	if (*p != ':')
		return FALSE;
	p++;
	if (!read_number(&p, BRIDGE_REWIND_MAX_BACK, &back))
		return FALSE;
	if (*p == 's')
		p++;
	pause *= unit;
	if (*p != '\0' || pause < 1 || pause > BRIDGE_REWIND_MAX_PAUSE)
		return FALSE;
	step->pause_s = (guint)pause;
	step->back_s = (guint)back;
	return TRUE;
}

gboolean
bridge_rewind_parse(const char *text, BridgeRewind *rewind)
{
	g_autofree char *copy = NULL;
	g_auto(GStrv) words = NULL;
	BridgeRewind read = { 0 };

	g_return_val_if_fail(text != NULL, FALSE);
	g_return_val_if_fail(rewind != NULL, FALSE);

	copy = g_strstrip(g_strdup(text));
	if (g_ascii_strcasecmp(copy, "none") == 0) {
		*rewind = read;
		return TRUE;
	}
	words = g_strsplit_set(copy, " \t,", -1);
	for (guint i = 0; words[i] != NULL; i++) {
		BridgeRewindStep step;

		if (*words[i] == '\0')
			continue;
		if (read.n_steps == BRIDGE_REWIND_MAX_STEPS ||
		    !parse_step(words[i], &step))
			return FALSE;
		/* Rising, so that the longest step passed is the last one. */
		if (read.n_steps > 0 &&
		    step.pause_s <= read.steps[read.n_steps - 1].pause_s)
			return FALSE;
		read.steps[read.n_steps++] = step;
	}
	*rewind = read;
	return TRUE;
}

guint
bridge_rewind_seconds(const BridgeRewind *rewind, gint64 pause_s)
{
	guint back = 0;

	g_return_val_if_fail(rewind != NULL, 0);

	for (guint i = 0; i < rewind->n_steps; i++) {
		if (pause_s > (gint64)rewind->steps[i].pause_s)
			back = rewind->steps[i].back_s;
	}
	return back;
}

char *
bridge_rewind_describe_pause(gint64 pause_s)
{
	if (pause_s < 120)
		return g_strdup_printf("%" G_GINT64_FORMAT " s", pause_s);
	if (pause_s < 2 * 3600)
		return g_strdup_printf("%" G_GINT64_FORMAT " min",
		                       pause_s / 60);
	if (pause_s < 2 * 86400)
		return g_strdup_printf("%" G_GINT64_FORMAT " h",
		                       pause_s / 3600);
	return g_strdup_printf("%" G_GINT64_FORMAT " days", pause_s / 86400);
}
