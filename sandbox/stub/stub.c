/*
 * termhelper's exec stub: the last step of a confined command's start.
 *
 * The helper starts this program for a confined command where it holds
 * namespaces made for the command's plan (a trampoline made them, with
 * the plan's mounts, once): with the command's environment, session,
 * terminal and standard files, and descriptors of those namespaces. The
 * stub enters them, confines itself as its arguments say, in their
 * order, then executes the command in its place: same pid, session and
 * terminal. If any step fails it runs nothing, says why in one line on
 * its standard error (the command's terminal) and exits 126.
 *
 * It is built freestanding (no C library, no runtime: only system calls),
 * static and at a fixed address, so that its start is an execve and
 * little else. `make stub` builds it for each Linux architecture termhelper
 * ships; the binaries are committed beside this file and embedded by the
 * sandbox package, and `make stub-check` (run by CI) checks that they are
 * what this source builds.
 *
 * Arguments, each step a letter and a fixed number of words:
 *
 *   j FILE                           write its pid to FILE (a cgroup's
 *                                    cgroup.procs: join it)
 *   n USERFD MNTFD                   enter the user namespace USERFD ("-":
 *                                    stay in its own) and the mount
 *                                    namespace MNTFD, then close both
 *   d DIR                            chdir(DIR): entering a mount namespace
 *                                    leaves the process at its root
 *   U NPROC                          enter a user namespace of its own
 *                                    that maps only its own uid and gid
 *                                    (setgroups denied), so that what
 *                                    the kernel keeps per user in one
 *                                    (the count of RLIMIT_NPROC, the
 *                                    user keyring) is the command's
 *                                    alone; then, NPROC > 0, set
 *                                    RLIMIT_NPROC to NPROC
 *   u FLAGS                          unshare(FLAGS)
 *   m SOURCE TARGET FSTYPE FLAGS DATA mount; "-" is an empty FSTYPE or DATA
 *   c KEEP LASTCAP                   clear the ambient set; as root, drop
 *                                    from the bounding set every capability
 *                                    up to LASTCAP not in KEEP; keep only
 *                                    KEEP of the permitted and effective
 *                                    sets, nothing inheritable
 *   l HANDLED SCOPED FILERIGHTS      start a Landlock ruleset
 *   r PATH ACCESS REQUIRED NOFOLLOW  a rule beneath PATH; a file gets only
 *                                    FILERIGHTS of ACCESS; a missing PATH
 *                                    fails the start only if REQUIRED
 *   L                                no_new_privs, then restrict to it
 *   s FD PROGRAM                     install the seccomp program (hex of
 *                                    its struct sock_filter array) with a
 *                                    listener, send the listener and its
 *                                    mount and IPC namespaces on the
 *                                    socket FD, close them all; FD "-":
 *                                    the program alone, no listener
 *   x                                exit 0 (a probe of the steps before)
 *   w CTL                            a spare's last step: wait on the socket
 *                                    CTL for the command (below), and
 *                                    execute it: the helper sends it once
 *                                    it has checked the spare still holds
 *   -- PATH ARGV0 ARG...             execute PATH with ARGV0 ARG...
 *
 * Numbers are decimal. Every descriptor the stub opens is close-on-exec.
 *
 * A spare's command is one datagram: '1' (its standard input is a
 * terminal, to be the session's) or '0', its folder, the number of words
 * of its argv (decimal), each of them, then each variable of its
 * environment, all ending with a NUL; its standard input, output and
 * error come beside it as rights.
 */

typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;
typedef long i64;

#if defined(__x86_64__)
enum {
	NR_write = 1, NR_close = 3, NR_fstat = 5, NR_sendmsg = 46, NR_execve = 59,
	NR_geteuid = 107, NR_capget = 125, NR_capset = 126, NR_prctl = 157,
	NR_mount = 165, NR_exit_group = 231, NR_openat = 257, NR_unshare = 272,
	NR_seccomp = 317, NR_getpid = 39, NR_setns = 308, NR_chdir = 80,
	NR_recvmsg = 47, NR_read = 0, NR_dup3 = 292, NR_ioctl = 16, NR_fcntl = 72,
	NR_getegid = 108, NR_prlimit64 = 302,
};

static i64 sys6(i64 n, i64 a, i64 b, i64 c, i64 d, i64 e, i64 f)
{
	register i64 r10 __asm__("r10") = d;
	register i64 r8 __asm__("r8") = e;
	register i64 r9 __asm__("r9") = f;
	i64 ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
enum {
	NR_write = 64, NR_close = 57, NR_fstat = 80, NR_sendmsg = 211, NR_execve = 221,
	NR_geteuid = 175, NR_capget = 90, NR_capset = 91, NR_prctl = 167,
	NR_mount = 40, NR_exit_group = 94, NR_openat = 56, NR_unshare = 97,
	NR_seccomp = 277, NR_getpid = 172, NR_setns = 268, NR_chdir = 49,
	NR_recvmsg = 212, NR_read = 63, NR_dup3 = 24, NR_ioctl = 29, NR_fcntl = 25,
	NR_getegid = 177, NR_prlimit64 = 261,
};

static i64 sys6(i64 n, i64 a, i64 b, i64 c, i64 d, i64 e, i64 f)
{
	register i64 x8 __asm__("x8") = n;
	register i64 x0 __asm__("x0") = a;
	register i64 x1 __asm__("x1") = b;
	register i64 x2 __asm__("x2") = c;
	register i64 x3 __asm__("x3") = d;
	register i64 x4 __asm__("x4") = e;
	register i64 x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
#else
#error "the exec stub knows the system calls of x86_64 and aarch64 only"
#endif

enum {
	NR_landlock_create_ruleset = 444, NR_landlock_add_rule = 445,
	NR_landlock_restrict_self = 446,
};

#define sys(n, a, b, c) sys6((n), (i64)(a), (i64)(b), (i64)(c), 0, 0, 0)

enum {
	O_WRONLY = 1,
	O_PATH = 010000000, O_CLOEXEC = 02000000,
	AT_FDCWD = -100, S_IFMT = 0170000, S_IFDIR = 0040000,
	PR_SET_NAME = 15, PR_CAPBSET_READ = 23, PR_CAPBSET_DROP = 24, PR_SET_NO_NEW_PRIVS = 38,
	PR_CAP_AMBIENT = 47, PR_CAP_AMBIENT_CLEAR_ALL = 4,
	SECCOMP_SET_MODE_FILTER = 1, SECCOMP_FILTER_FLAG_NEW_LISTENER = 8,
	SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 32,
	LANDLOCK_RULE_PATH_BENEATH = 1, CAP_V3 = 0x20080522,
	CLONE_NEWNS = 0x00020000, CLONE_NEWUSER = 0x10000000,
	SOL_SOCKET = 1, SCM_RIGHTS = 1, MSG_CMSG_CLOEXEC = 0x40000000,
	TIOCSCTTY = 0x540E, F_SETFD = 2,
	E_NOENT = 2, E_INTR = 4, E_INVAL = 22, RLIMIT_NPROC = 6,
};

#if defined(__x86_64__)
enum { O_NOFOLLOW = 0400000 };
#else
enum { O_NOFOLLOW = 0100000 };
#endif

/* The kernel's struct stat differs by architecture; only st_mode is read,
 * from an offset each knows. */
#if defined(__x86_64__)
#define STAT_MODE(b) (*(u32 *)((b) + 24))
#else
#define STAT_MODE(b) (*(u32 *)((b) + 16))
#endif

struct ruleset_attr { u64 handled_fs, handled_net, scoped; };
struct path_beneath { u64 allowed; int parent_fd; } __attribute__((packed));
struct cap_header { u32 version; int pid; };
struct cap_data { u32 effective, permitted, inheritable; };
struct sock_fprog { u16 len; void *filter; };
struct iovec { void *base; u64 len; };
struct msghdr {
	void *name; u32 namelen; struct iovec *iov; u64 iovlen;
	void *control; u64 controllen; int flags;
};
struct cmsg { u64 len; int level, type; int fd; int pad; };

/* The compiler may call these for a struct's copy or zeroing. */
void *memset(void *d, int c, u64 n)
{
	u8 *p = d;
	while (n--)
		*p++ = (u8)c;
	return d;
}

void *memcpy(void *d, const void *s, u64 n)
{
	u8 *p = d;
	const u8 *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

static u64 slen(const char *s)
{
	u64 n = 0;
	while (s[n])
		n++;
	return n;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static void put(char **p, const char *s)
{
	while (*s)
		*(*p)++ = *s++;
}

static const char *errname(i64 e)
{
	static const char *names[] = {
		[1] = "operation not permitted", [2] = "no such file or directory",
		[9] = "bad file descriptor", [12] = "out of memory",
		[13] = "permission denied", [14] = "bad address",
		[16] = "device or resource busy", [20] = "not a directory",
		[22] = "invalid argument", [24] = "too many open files",
		[38] = "function not implemented", [40] = "too many levels of symbolic links",
		[95] = "operation not supported",
	};
	if (e > 0 && e < (i64)(sizeof names / sizeof names[0]) && names[e])
		return names[e];
	return "error";
}

/* fail says why in one line and exits 126; what is the step, and arg
 * the path or word it was about (or 0). */
static void __attribute__((noreturn)) fail(const char *what, const char *arg, i64 err)
{
	static char buf[4096];
	char *p = buf;
	put(&p, "termhelper: the sandbox could not be set up, the command did not run: ");
	put(&p, what);
	if (arg && slen(arg) < 3000) {
		put(&p, " ");
		put(&p, arg);
	}
	if (err) {
		put(&p, ": ");
		put(&p, errname(err));
	}
	put(&p, "\n");
	sys(NR_write, 2, buf, p - buf);
	for (;;)
		sys(NR_exit_group, 126, 0, 0);
}

static u64 number(const char *s)
{
	u64 n = 0;
	if (!*s)
		fail("reading its arguments: an empty number", 0, 0);
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			fail("reading its arguments: not a number:", s, 0);
		n = n * 10 + (u64)(*s - '0');
	}
	return n;
}

static const char *word(const char *s) { return same(s, "-") ? 0 : s; }

/* argument reading: the words left, and the next one */
struct args { char **v; int n; };

static char *next(struct args *a)
{
	if (a->n == 0)
		fail("reading its arguments: a step is missing words", 0, 0);
	a->n--;
	return *a->v++;
}

static void check(i64 ret, const char *what, const char *arg)
{
	if (ret < 0)
		fail(what, arg, -ret);
}

static void step_mount(struct args *a)
{
	const char *src = next(a), *dst = next(a), *fstype = word(next(a));
	u64 flags = number(next(a));
	const char *data = word(next(a));
	check(sys6(NR_mount, (i64)src, (i64)dst, (i64)fstype, (i64)flags, (i64)data, 0), "mounting", dst);
}

/* decimal writes n in decimal ending at end and returns where it starts */
static char *decimal(u64 n, char *end)
{
	do
		*--end = (char)('0' + n % 10);
	while (n /= 10);
	return end;
}

/* write_file writes n bytes of s to the file at path; what says what
 * failed. */
static void write_file(const char *path, const char *s, u64 n, const char *what)
{
	i64 fd = sys6(NR_openat, AT_FDCWD, (i64)path, O_WRONLY | O_CLOEXEC, 0, 0, 0);
	check(fd, what, path);
	check(sys(NR_write, fd, s, n), what, path);
	sys(NR_close, fd, 0, 0);
}

static void step_join(struct args *a)
{
	const char *file = next(a);
	char buf[24], *p = decimal((u64)sys(NR_getpid, 0, 0, 0), buf + sizeof buf);
	write_file(file, p, (u64)(buf + sizeof buf - p), "joining the cgroup of the process limit:");
}

/* write_map maps id, as the namespace it was made in knows it, to itself
 * in the namespace's map at path */
static void write_map(const char *path, u64 id)
{
	char buf[64], *end = buf + sizeof buf, *p = end;
	*--p = '\n';
	p = decimal(1, p);
	*--p = ' ';
	p = decimal(id, p);
	*--p = ' ';
	p = decimal(id, p);
	write_file(path, p, (u64)(end - p), "mapping its ids in its own user namespace:");
}

static void step_user(struct args *a)
{
	u64 nproc = number(next(a));
	u64 uid = (u64)sys(NR_geteuid, 0, 0, 0), gid = (u64)sys(NR_getegid, 0, 0, 0);
	check(sys(NR_unshare, CLONE_NEWUSER, 0, 0), "entering a user namespace of its own", 0);
	i64 fd = sys6(NR_openat, AT_FDCWD, (i64)"/proc/self/setgroups", O_WRONLY | O_CLOEXEC, 0, 0, 0);
	if (fd != -E_NOENT) { /* before Linux 3.19 there is no such file */
		check(fd, "denying setgroups in its own user namespace", 0);
		check(sys(NR_write, fd, "deny", 4), "denying setgroups in its own user namespace", 0);
		sys(NR_close, fd, 0, 0);
	}
	write_map("/proc/self/uid_map", uid);
	write_map("/proc/self/gid_map", gid);
	if (nproc) {
		u64 lim[2] = { nproc, nproc };
		check(sys6(NR_prlimit64, 0, RLIMIT_NPROC, (i64)lim, 0, 0, 0), "setting the process limit", 0);
	}
}

static void step_enter(struct args *a)
{
	const char *user = next(a);
	int mnt = (int)number(next(a));
	if (!same(user, "-")) {
		int fd = (int)number(user);
		check(sys(NR_setns, fd, CLONE_NEWUSER, 0), "entering the sandbox's user namespace", 0);
		sys(NR_close, fd, 0, 0);
	}
	check(sys(NR_setns, mnt, CLONE_NEWNS, 0), "entering the sandbox's mount namespace", 0);
	sys(NR_close, mnt, 0, 0);
}

static void step_caps(struct args *a)
{
	u64 keep = number(next(a)), last = number(next(a));
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];
	i64 e = sys(NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0);
	if (e < 0 && -e != E_INVAL)
		fail("clearing ambient capabilities", 0, -e);
	if (sys(NR_geteuid, 0, 0, 0) == 0) {
		for (u64 c = 0; c <= last && c < 64; c++) {
			if (keep & (1UL << c) || sys(NR_prctl, PR_CAPBSET_READ, c, 0) == 0)
				continue;
			e = sys(NR_prctl, PR_CAPBSET_DROP, c, 0);
			if (e < 0 && -e != E_INVAL)
				fail("dropping a capability from the bounding set", 0, -e);
		}
	} else {
		keep = 0;
	}
	check(sys(NR_capget, &h, d, 0), "reading capabilities", 0);
	for (int i = 0; i < 2; i++) {
		d[i].permitted &= (u32)(keep >> (32 * i));
		d[i].effective = d[i].permitted;
		d[i].inheritable = 0;
	}
	check(sys(NR_capset, &h, d, 0), "dropping capabilities", 0);
}

static int ruleset = -1;
static u64 file_rights, handled;

static void step_ruleset(struct args *a)
{
	struct ruleset_attr attr = { 0, 0, 0 };
	attr.handled_fs = handled = number(next(a));
	attr.scoped = number(next(a));
	file_rights = number(next(a));
	/* a kernel that knows fewer fields takes the struct while they are zero */
	i64 fd = sys6(NR_landlock_create_ruleset, (i64)&attr, sizeof attr, 0, 0, 0, 0);
	check(fd, "creating the Landlock ruleset", 0);
	ruleset = (int)fd;
}

static void step_rule(struct args *a)
{
	const char *path = next(a);
	u64 access = number(next(a)), required = number(next(a)), nofollow = number(next(a));
	u8 st[256];
	if (ruleset < 0)
		fail("reading its arguments: a rule before its ruleset", 0, 0);
	i64 fd = sys6(NR_openat, AT_FDCWD, (i64)path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0), 0, 0, 0);
	if (fd < 0 && !required)
		return;
	check(fd, "opening a place to allow:", path);
	check(sys(NR_fstat, fd, st, 0), "reading a place to allow:", path);
	if ((STAT_MODE(st) & S_IFMT) != S_IFDIR)
		access &= file_rights;
	access &= handled;
	if (access) {
		struct path_beneath pb = { access, (int)fd };
		check(sys6(NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, (i64)&pb, 0, 0, 0), "adding a Landlock rule:", path);
	}
	sys(NR_close, fd, 0, 0);
}

static void step_restrict(void)
{
	if (ruleset < 0)
		fail("reading its arguments: no ruleset to restrict to", 0, 0);
	check(sys6(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0), "setting no_new_privs", 0);
	check(sys(NR_landlock_restrict_self, ruleset, 0, 0), "restricting with Landlock", 0);
	sys(NR_close, ruleset, 0, 0);
	ruleset = -1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* send_fds sends n descriptors (at most 3) on sock. */
static void send_fds(int sock, const int *fds, int n)
{
	char one = 1;
	struct iovec iov = { &one, 1 };
	struct { u64 len; int level, type; int fd[3]; int pad; } c = { 16 + 4 * (u64)n, SOL_SOCKET, SCM_RIGHTS, { -1, -1, -1 }, 0 };
	for (int i = 0; i < n; i++)
		c.fd[i] = fds[i];
	struct msghdr m = { 0, 0, &iov, 1, &c, 16 + 8 * (u64)((n + 1) / 2), 0 };
	i64 e;
	do
		e = sys(NR_sendmsg, sock, &m, 0);
	while (e == -E_INTR);
	check(e, "handing the network filter to the helper", 0);
}

static void step_seccomp(struct args *a)
{
	static u8 prog[8 * 4096];
	const char *sockword = next(a), *hex = next(a);
	int sock = word(sockword) ? (int)number(sockword) : -1;
	u64 n = slen(hex);
	if (n % 16 || n == 0 || n / 2 > sizeof prog)
		fail("reading its arguments: not a filter program", 0, 0);
	for (u64 i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			fail("reading its arguments: not a filter program", 0, 0);
		prog[i] = (u8)(hi << 4 | lo);
	}
	struct sock_fprog fp = { (u16)(n / 16), prog };
	check(sys6(NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0), "setting no_new_privs", 0);
	if (sock < 0) {
		check(sys(NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp), "installing the seccomp filter", 0);
		return;
	}
	i64 fd = sys(NR_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &fp);
	if (fd == -E_INVAL)
		fd = sys(NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
	check(fd, "filtering the network", 0);
	/* The command's own namespaces go with the listener: held by the
	 * helper, they are torn down after the answer, not in the command's
	 * exit, which the helper waits for. */
	int fds[3] = { (int)fd, -1, -1 }, nfds = 1;
	static const char *const own[] = { "/proc/self/ns/mnt", "/proc/self/ns/ipc" };
	for (int i = 0; i < 2; i++) {
		i64 f = sys6(NR_openat, AT_FDCWD, (i64)own[i], O_CLOEXEC, 0, 0, 0);
		if (f >= 0)
			fds[nfds++] = (int)f;
	}
	send_fds(sock, fds, nfds);
	for (int i = 0; i < nfds; i++)
		sys(NR_close, fds[i], 0, 0);
	sys(NR_close, sock, 0, 0);
}

/* A spare's command, as received. */
enum { MAXMSG = 128 << 10, MAXWORDS = 8192 };
static char msg[MAXMSG + 1];
static char *words[2 * MAXWORDS + 2];

/* read_command receives the command on ctl, places its standard files
 * and returns its argv (its environment in *env, its folder in *dir);
 * 0 where the helper sent none (it ended the spare). */
static char **read_command(int ctl, char ***env, const char **dir, int *ctty)
{
	char control[64] __attribute__((aligned(8)));
	struct iovec iov = { msg, MAXMSG };
	struct msghdr m = { 0, 0, &iov, 1, control, sizeof control, 0 };
	i64 n;
	do
		n = sys(NR_recvmsg, ctl, &m, MSG_CMSG_CLOEXEC);
	while (n == -E_INTR);
	struct { u64 len; int level, type; int fd[3]; } *c = (void *)control;
	if (n <= 2 || m.controllen < 28 || c->level != SOL_SOCKET || c->type != SCM_RIGHTS || c->len != 28)
		return 0;
	msg[n] = 0;
	for (int i = 0; i < 3; i++) {
		if (c->fd[i] == i)
			sys(NR_fcntl, i, F_SETFD, 0);
		else if (sys(NR_dup3, c->fd[i], i, 0) < 0)
			return 0;
	}
	*ctty = msg[0] == '1';
	*dir = msg + 1;
	char *p = msg + 1 + slen(msg + 1) + 1, *end = msg + n;
	if (p >= end)
		return 0;
	u64 argc = number(p);
	p += slen(p) + 1;
	if (argc == 0 || argc > MAXWORDS)
		return 0;
	u64 w = 0;
	for (; p < end && w < sizeof words / sizeof words[0] - 2; p += slen(p) + 1) {
		if (w == argc)
			words[w++] = 0;
		words[w++] = p;
	}
	if (w == argc)
		words[w++] = 0;
	words[w] = 0;
	if (w <= argc || p < end)
		return 0;
	*env = words + argc + 1;
	return words;
}

/* step_wait is a spare's last step: the command, executed in the spare's
 * place. A spare that receives none was ended unused. */
static void __attribute__((noreturn)) step_wait(struct args *a)
{
	int ctl = (int)number(next(a)), ctty = 0;
	char **env = 0;
	const char *dir = 0;
	char **argv = read_command(ctl, &env, &dir, &ctty);
	if (!argv)
		for (;;)
			sys(NR_exit_group, 126, 0, 0);
	sys(NR_close, ctl, 0, 0);
	if (ctty)
		check(sys(NR_ioctl, 0, TIOCSCTTY, 0), "taking the terminal", 0);
	check(sys(NR_chdir, dir, 0, 0), "entering the command's folder", dir);
	fail("executing", argv[0], -sys(NR_execve, argv[0], argv, env));
}

static void run(struct args a, char **envp)
{
	while (a.n > 0) {
		const char *s = next(&a);
		if (same(s, "--")) {
			const char *path = next(&a);
			if (a.n == 0)
				fail("reading its arguments: no command", 0, 0);
			fail("executing", path, -sys(NR_execve, path, a.v, envp));
		}
		if (same(s, "j"))
			step_join(&a);
		else if (same(s, "n"))
			step_enter(&a);
		else if (same(s, "d")) {
			const char *dir = next(&a);
			check(sys(NR_chdir, dir, 0, 0), "entering the command's folder", dir);
		} else if (same(s, "w"))
			step_wait(&a);
		else if (same(s, "x"))
			for (;;)
				sys(NR_exit_group, 0, 0, 0);
		else if (same(s, "U"))
			step_user(&a);
		else if (same(s, "u"))
			check(sys(NR_unshare, number(next(&a)), 0, 0), "entering namespaces of its own", 0);
		else if (same(s, "m"))
			step_mount(&a);
		else if (same(s, "c"))
			step_caps(&a);
		else if (same(s, "l"))
			step_ruleset(&a);
		else if (same(s, "r"))
			step_rule(&a);
		else if (same(s, "L"))
			step_restrict();
		else if (same(s, "s"))
			step_seccomp(&a);
		else
			fail("reading its arguments: no such step:", s, 0);
	}
	fail("reading its arguments: no command", 0, 0);
}

/* main is called by _start with the stack as the kernel laid it out:
 * argc, argv..., 0, envp..., 0. */
void __attribute__((used)) stub_main(long *sp)
{
	/* executed as /proc/self/fd/N, its name would be N in ps and top */
	sys(NR_prctl, PR_SET_NAME, "termhelper-exec", 0);
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	char **envp = argv + argc + 1;
	struct args a = { argv + 1, argc - 1 };
	run(a, envp);
}

#if defined(__x86_64__)
__asm__(".text\n.global _start\n_start:\n"
	"xor %rbp, %rbp\nmov %rsp, %rdi\nand $-16, %rsp\ncall stub_main\nhlt\n");
#else
__asm__(".text\n.global _start\n_start:\n"
	"mov x29, #0\nmov x30, #0\nmov x0, sp\nand sp, x0, #-16\nbl stub_main\nbrk #0\n");
#endif
