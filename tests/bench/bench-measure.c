/*
 * bench-measure: run one program and report its wall time and peak RSS.
 *
 * Usage: bench-measure [-o FILE] PROG [ARG...]
 *
 * PROG runs with stdin from /dev/null, stdout to FILE (default /dev/null)
 * and this program's stderr. When it has ended, one line goes to stdout:
 *
 *     SECONDS MAXRSS_KIB STATUS
 *
 * STATUS is PROG's exit code, or 128 + the signal that killed it. This
 * program exits 0 when it could run PROG at all, whatever PROG did, and
 * 125 otherwise.
 *
 * Why not measure from the Python runner directly: Linux keeps a process's
 * peak RSS across exec, so a child forked from a Python interpreter reports
 * at least the interpreter's own peak. Forked from this small program, the
 * floor is about 1 MB. /usr/bin/time would do the same but times to 10 ms.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
redirect(const char *path, int flags, int target)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		return -1;
	if (fd != target) {
		if (dup2(fd, target) < 0)
			return -1;
		close(fd);
	}
	return 0;
}

static double
seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

int
main(int argc, char **argv)
{
	const char *out = "/dev/null";
	struct timespec start, end;
	struct rusage usage;
	int status, code;
	int report[2];
	int child_errno;
	int first = 1;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "-o") == 0) {
		out = argv[2];
		first = 3;
	}
	if (first >= argc) {
		fprintf(stderr, "usage: %s [-o FILE] PROG [ARG...]\n", argv[0]);
		return 125;
	}

	/* The child reports a failed redirect or exec through this pipe. */
	if (pipe2(report, O_CLOEXEC) < 0) {
		fprintf(stderr, "bench-measure: pipe: %s\n", strerror(errno));
		return 125;
	}

	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bench-measure: fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		int err;

		close(report[0]);
		if (redirect("/dev/null", O_RDONLY, STDIN_FILENO) == 0 &&
		    redirect(out, O_WRONLY | O_CREAT | O_TRUNC,
		             STDOUT_FILENO) == 0)
			execvp(argv[first], argv + first);
		err = errno;
		/* If even this fails, the parent sees exit status 126. */
		if (write(report[1], &err, sizeof(err)) != sizeof(err))
			_exit(126);
		_exit(127);
	}
	close(report[1]);

	while (wait4(pid, &status, 0, &usage) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "bench-measure: wait4: %s\n",
			        strerror(errno));
			return 125;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &end);

	if (read(report[0], &child_errno, sizeof(child_errno)) ==
	    (ssize_t)sizeof(child_errno)) {
		fprintf(stderr,
		        "bench-measure: cannot run %s (output %s): %s\n",
		        argv[first], out, strerror(child_errno));
		return 125;
	}

	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		code = 128 + WTERMSIG(status);
	else
		code = 255;

	printf("%.6f %ld %d\n", seconds_between(&start, &end), usage.ru_maxrss,
	       code);
	return 0;
}
