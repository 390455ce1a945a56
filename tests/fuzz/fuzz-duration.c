/* Episode durations: any text gives seconds from 0 to 2^53-1. */
#include "fuzz.h"

#include "duration-private.h"

#define MAX_SECONDS ((G_GINT64_CONSTANT(1) << 53) - 1)

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autofree char *text = fuzz_dup_string(data, size);
	gint64 seconds = feed_duration_parse(text);

	fuzz_check(seconds >= 0 && seconds <= MAX_SECONDS,
	           "'%s' gives %" G_GINT64_FORMAT " seconds", text, seconds);
	return 0;
}
