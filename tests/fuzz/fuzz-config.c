/*
 * mpd-bridge's settings file: whatever it holds, the loader gives settings
 * or an error that names the file, never a crash.
 */
#include "fuzz.h"

#include "core/config.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_init_log();
	/* The file decides, not whoever runs the fuzzer. */
	g_unsetenv("MPD_HOST");
	g_unsetenv("MPD_PORT");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autofree char *path = fuzz_write_temp("config", data, size);
	g_autoptr(GError) error = NULL;
	BridgeConfig *config = bridge_config_load(path, &error);

	if (config == NULL) {
		fuzz_check(error != NULL, "failed without an error");
		fuzz_check(strstr(error->message, path) != NULL,
		           "the error does not name the file: %s",
		           error->message);
		return 0;
	}
	fuzz_check(error == NULL, "error set on success");
	fuzz_check(config->channel != NULL && *config->channel != '\0',
	           "no channel");
	fuzz_check(config->state_path != NULL, "no state path");
	bridge_config_free(config);
	return 0;
}
