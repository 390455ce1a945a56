/* Feed dates, RFC 822 and ISO 8601: any text gives a number, or 0. */
#include "fuzz.h"

#include "date-private.h"

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

	(void)feed_date_parse(text);
	return 0;
}
