/*
 * Runs a fuzz target without libFuzzer, as an ordinary test: each file
 * given, and each file of each directory given (in name order), goes once
 * through LLVMFuzzerTestOneInput(). A bug aborts the test, as it would
 * stop the fuzzer.
 */
#include "fuzz.h"

/* Targets that need no set-up do not define it. */
#pragma weak LLVMFuzzerInitialize

static gint
compare_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
run_file(const char *path)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *contents = NULL;
	uint8_t *data;
	gsize size;

	if (!g_file_get_contents(path, &contents, &size, &error)) {
		fprintf(stderr, "driver: %s\n", error->message);
		exit(EXIT_FAILURE);
	}
	/*
	 * Exactly as long as the input, as under libFuzzer, with no NUL
	 * after it: AddressSanitizer then sees a read past the end. malloc(0)
	 * gives a pointer too, as libFuzzer does for an empty input.
	 */
	data = malloc(size);
	if (size > 0)
		memcpy(data, contents, size);
	printf("%s (%zu bytes)\n", path, (size_t)size);
	fflush(stdout);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
}

static guint
run_directory(const char *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	GDir *dir = g_dir_open(path, 0, &error);
	const char *name;

	if (dir == NULL) {
		fprintf(stderr, "driver: %s\n", error->message);
		exit(EXIT_FAILURE);
	}
	while ((name = g_dir_read_name(dir)) != NULL)
		g_ptr_array_add(names, g_build_filename(path, name, NULL));
	g_dir_close(dir);
	g_ptr_array_sort(names, compare_names);
	for (guint i = 0; i < names->len; i++)
		run_file(names->pdata[i]);
	return names->len;
}

int
main(int argc, char **argv)
{
	guint inputs = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS-DIR|FILE…\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		if (g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
			inputs += run_directory(argv[i]);
		} else {
			run_file(argv[i]);
			inputs++;
		}
	}
	/* An empty corpus would pass while testing nothing. */
	if (inputs == 0) {
		fprintf(stderr, "driver: no inputs in the corpus\n");
		return EXIT_FAILURE;
	}
	printf("%u inputs, no failure\n", inputs);
	return EXIT_SUCCESS;
}
