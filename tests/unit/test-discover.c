/* placeholder until the autodiscovery tests land */
#include <glib.h>

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
	return g_test_run();
}
