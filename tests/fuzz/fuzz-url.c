/*
 * URLs in feeds: resolving against a base, normalizing enclosures and
 * taking the file name. The input is BASE, a NUL byte, then REF; without
 * a NUL it is REF alone, resolved against no base.
 */
#include "fuzz.h"

#include "url-private.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	return 0;
}

/* Rule 5: one of four schemes, lower case, and no blanks left inside. */
static void
check_normalized(const char *url)
{
	g_autofree char *normal = feed_url_normalize(url);

	if (normal == NULL)
		return;
	fuzz_check(g_str_has_prefix(normal, "http://") ||
	                   g_str_has_prefix(normal, "https://") ||
	                   g_str_has_prefix(normal, "ftp://") ||
	                   g_str_has_prefix(normal, "file://"),
	           "'%s' normalizes to '%s'", url, normal);
	fuzz_check(strpbrk(normal, " \t\r\n") == NULL,
	           "'%s' normalizes to '%s'", url, normal);
}

static void
check_basename(const char *url)
{
	g_autofree char *name = feed_url_basename_no_extension(url);

	fuzz_check_utf8("basename", name);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	g_autofree char *base =
	        nul != NULL ? fuzz_dup_string(data, (size_t)(nul - data))
	                    : NULL;
	g_autofree char *ref =
	        nul != NULL ? fuzz_dup_string(nul + 1, size - (nul - data) - 1)
	                    : fuzz_dup_string(data, size);
	g_autofree char *resolved = feed_url_resolve(base, ref);

	fuzz_check(resolved == NULL || *resolved != '\0',
	           "'%s' resolves to an empty URL", ref);
	check_normalized(ref);
	check_basename(ref);
	if (resolved != NULL) {
		check_normalized(resolved);
		check_basename(resolved);
	}
	return 0;
}
