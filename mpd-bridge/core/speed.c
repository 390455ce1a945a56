/*
 * Speeds read and written in the C locale, so that "1.5" means the
 * same everywhere, as in MPD's configuration.
 */
#include "core/speed.h"

#include <string.h>

gboolean
bridge_speed_parse(const char *text, guint *hundredths)
{
	guint whole = 0;
	guint fraction = 0;
	guint digits = 0;
	const char *p = text;
	guint value;

	g_return_val_if_fail(text != NULL, FALSE);
	g_return_val_if_fail(hundredths != NULL, FALSE);

	if (!g_ascii_isdigit(*p))
		return FALSE;
	while (g_ascii_isdigit(*p) && whole < 100)
		whole = whole * 10 + (guint)(*p++ - '0');
	if (*p == '.') {
		p++;
		while (g_ascii_isdigit(*p) && digits < 3) {
			fraction = fraction * 10 + (guint)(*p++ - '0');
			digits++;
		}
	}
	if (digits == 1)
		fraction *= 10;
	if (digits > 2 || g_ascii_isdigit(*p))
		return FALSE;
	if (*p == 'x' || *p == 'X')
		p++;
	else if (strncmp(p, "×", strlen("×")) == 0)
		p += strlen("×");
	if (*p != '\0')
		return FALSE;
	value = whole * 100 + fraction;
	if (value < BRIDGE_SPEED_MIN || value > BRIDGE_SPEED_MAX)
		return FALSE;
	*hundredths = value;
	return TRUE;
}

char *
bridge_speed_format(guint hundredths)
{
	if (hundredths % 100 == 0)
		return g_strdup_printf("%u", hundredths / 100);
	if (hundredths % 10 == 0)
		return g_strdup_printf("%u.%u", hundredths / 100,
		                       hundredths % 100 / 10);
	return g_strdup_printf("%u.%02u", hundredths / 100, hundredths % 100);
}
