/* Show notes, HTML to text: valid UTF-8 in gives valid UTF-8 out. */
#include "fuzz.h"

#include "html-private.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autofree char *html = fuzz_dup_string(data, size);
	g_autofree char *text = feed_html_to_text(html);

	fuzz_check(text != NULL, "no text");
	if (g_utf8_validate(html, -1, NULL))
		fuzz_check_utf8("text of valid UTF-8", text);
	return 0;
}
