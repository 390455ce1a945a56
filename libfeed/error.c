#include "feed/error.h"

/*
 * Written out rather than with G_DEFINE_QUARK, which clang-format 14 mangles
 * into `feed - error - quark`.
 */
GQuark
feed_error_quark(void)
{
	return g_quark_from_static_string("feed-error-quark");
}
