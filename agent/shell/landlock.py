"""The Landlock backend's restrictions, applied by launcher.py in the child just before exec.

- file system: PyPI `landlock` (its Ruleset handles file-system rights only);
- TCP bind/connect (ABI 4) and signal / abstract-socket scoping (ABI 6): a second ruleset made here
  with the kernel's full ruleset struct, which that library does not expose;
- other sockets and io_uring: a seccomp filter through libseccomp (the system library, via ctypes)
  refusing socket(AF_UNIX) always (seccomp cannot read the path a unix socket connects to, and
  Landlock does not restrict connecting to a named socket: any local service, another workspace's
  daemon), socket(AF_INET/AF_INET6/AF_PACKET) without network, and io_uring_setup.
  socketpair() stays allowed: the unnamed pairs that shells, Python and Node use between their
  own processes;
- root: every capability dropped and SECBIT_NOROOT locked, so uid 0 gains nothing on exec.

Nothing here may import agent.config or pydantic: the launcher must start fast.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os

PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
_SECBITS_LOCKED_NOROOT = 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20  # noroot, no_setuid_fixup, keep_caps: all locked
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_RESTRICT_SELF = 446
_NET_BIND_TCP, _NET_CONNECT_TCP = 1, 2
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1, 2

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int
_libc.prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI version (0 when Landlock is missing or disabled)."""
    ctypes.set_errno(0)
    res = _libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return int(res) if res > 0 else 0


def prctl(option: int, arg: int = 0) -> None:
    ctypes.set_errno(0)
    _check(_libc.prctl(option, arg, 0, 0, 0), f"prctl({option})")


def restrict_files(grants: list[tuple[str, str]]) -> None:
    """Allow only the given paths: ("path", "read" | "write" | "device")."""
    from landlock import FSAccess, Ruleset  # the file-system part of Landlock

    handled = FSAccess.all()
    file_rights = FSAccess.all_file()
    read = FSAccess.EXECUTE | FSAccess.READ_FILE | FSAccess.READ_DIR
    device = FSAccess.READ_FILE | FSAccess.WRITE_FILE | (FSAccess.IOCTL_DEV if abi_version() >= 5 else 0)
    rights = {"read": read, "write": handled, "device": device, "list": FSAccess.READ_DIR}
    # the library reads errno after each call to decide failure: start every call from 0
    ctypes.set_errno(0)
    ruleset = Ruleset(handled)
    for path, kind in grants:
        wanted = rights[kind]
        try:
            if not os.path.isdir(path):
                wanted &= file_rights
            if wanted:
                ctypes.set_errno(0)
                ruleset.allow(path, rules=FSAccess(wanted))
        except FileNotFoundError:
            continue
    ctypes.set_errno(0)
    ruleset.apply()


def restrict_network_and_signals(*, network: bool) -> None:
    """No TCP (ABI 4+) unless `network`; no signals or abstract sockets beyond the sandbox (ABI 6+)."""
    abi = abi_version()
    attr = _RulesetAttr(0, 0, 0)
    size = 8
    if abi >= 4 and not network:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL
        size = 24
    if size == 8:
        return
    ctypes.set_errno(0)
    fd = _check(_libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                              ctypes.c_uint32(0)), "landlock_create_ruleset")
    try:
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        ctypes.set_errno(0)
        _check(_libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)),
               "landlock_restrict_self")
    finally:
        os.close(fd)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def block_sockets(*, network: bool) -> bool:
    """Refuse new unix sockets, IP and packet sockets (unless `network`) and io_uring with seccomp.
    False when libseccomp is missing."""
    try:  # the soname first: find_library runs ldconfig in a subprocess, on every command
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        name = ctypes.util.find_library("seccomp")
        if name is None:
            return False
        lib = ctypes.CDLL(name, use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_rule_add_array.argtypes = (ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp))
    lib.seccomp_load.argtypes = (ctypes.c_void_p,)
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    allow, cmp_eq = 0x7FFF0000, 4

    def deny(code: int) -> int:
        return 0x00050000 | (code & 0xFFFF)

    ctx = lib.seccomp_init(allow)
    if not ctx:
        raise OSError("seccomp_init failed")
    try:
        socket_nr = lib.seccomp_syscall_resolve_name(b"socket")
        families = [1] if network else [1, 2, 10, 17]  # AF_UNIX; AF_INET, AF_INET6, AF_PACKET
        for family in families:
            cond = _ArgCmp(0, cmp_eq, family, 0)
            _check(lib.seccomp_rule_add_array(ctx, deny(errno.EACCES), socket_nr, 1, ctypes.byref(cond)),
                   "seccomp_rule_add(socket)")
        uring = lib.seccomp_syscall_resolve_name(b"io_uring_setup")
        if uring >= 0:
            _check(lib.seccomp_rule_add_array(ctx, deny(errno.ENOSYS), uring, 0, None), "seccomp_rule_add(io_uring)")
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        _check(lib.seccomp_load(ctx), "seccomp_load")
    finally:
        lib.seccomp_release(ctx)
    return True


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_root_powers() -> None:
    """For uid 0, or in a new user namespace: drop every capability for good (bounding set, ambient,
    effective, permitted)."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as fh:
            last = int(fh.read().strip())
    except (OSError, ValueError):
        last = 40
    prctl(PR_SET_SECUREBITS, _SECBITS_LOCKED_NOROOT)
    for cap in range(last + 1):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
    with contextlib.suppress(OSError):
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    ctypes.set_errno(0)
    _check(_libc.syscall(126 if os.uname().machine == "x86_64" else 91, ctypes.byref(header), data), "capset")
