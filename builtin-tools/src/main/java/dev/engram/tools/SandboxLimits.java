package dev.engram.tools;

/**
 * The resource limits of one command or Python tool call in the bubblewrap sandbox. The first four are set
 * inside the sandbox with {@code prlimit} (util-linux) as the kernel's rlimits, after every capability is
 * dropped, so the command cannot raise them again; the private {@code /tmp} is a tmpfs of {@code tmpBytes}.
 * The kernel enforces every one of them, the process count too: the sandbox is never root on the host
 * ({@link SandboxUser}), and {@code RLIMIT_NPROC} counts (since Linux 5.14) the processes of the sandbox's own user
 * namespace, so a fork past it fails ({@code EAGAIN}) while what already runs goes on.
 *
 * @param addressSpaceBytes the virtual memory of each process ({@code RLIMIT_AS}), at least 64 MiB
 * @param processes         processes (and threads) in the sandbox at once ({@code RLIMIT_NPROC}), at least 8
 * @param fileSizeBytes     the largest file a process may write ({@code RLIMIT_FSIZE}), at least 1 KiB
 * @param cpuSeconds        CPU time of each process ({@code RLIMIT_CPU}), at least 1
 * @param tmpBytes          the size of the private {@code /tmp} (which also holds {@code HOME}), at least 1 MiB
 */
public record SandboxLimits(long addressSpaceBytes, int processes, long fileSizeBytes, int cpuSeconds, long tmpBytes) {
    private static final long MIB = 1024L * 1024;

    /**
     * Validates every limit.
     *
     * @throws IllegalArgumentException naming the limit and its smallest value when one is too small
     */
    public SandboxLimits {
        atLeast("address space bytes", addressSpaceBytes, 64 * MIB);
        atLeast("processes", processes, 8);
        atLeast("file size bytes", fileSizeBytes, 1024);
        atLeast("CPU seconds", cpuSeconds, 1);
        atLeast("tmp bytes", tmpBytes, MIB);
    }

    private static void atLeast(String what, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException("sandbox " + what + " must be at least " + min + ", got " + value);
        }
    }

    /**
     * The defaults: 4 GiB of address space per process, 128 processes, files up to 1 GiB, 300 s of CPU time
     * per process (the longest a shell call may last) and a 128 MiB {@code /tmp}. Enough for git, a build's
     * compiler or a Python script; not enough to take a shared server's memory, disk or process table.
     */
    public static SandboxLimits defaults() {
        return new SandboxLimits(4096 * MIB, 128, 1024 * MIB, 300, 128 * MIB);
    }

    public SandboxLimits withAddressSpaceBytes(long bytes) {
        return new SandboxLimits(bytes, processes, fileSizeBytes, cpuSeconds, tmpBytes);
    }

    public SandboxLimits withProcesses(int count) {
        return new SandboxLimits(addressSpaceBytes, count, fileSizeBytes, cpuSeconds, tmpBytes);
    }

    public SandboxLimits withFileSizeBytes(long bytes) {
        return new SandboxLimits(addressSpaceBytes, processes, bytes, cpuSeconds, tmpBytes);
    }

    public SandboxLimits withCpuSeconds(int seconds) {
        return new SandboxLimits(addressSpaceBytes, processes, fileSizeBytes, seconds, tmpBytes);
    }

    public SandboxLimits withTmpBytes(long bytes) {
        return new SandboxLimits(addressSpaceBytes, processes, fileSizeBytes, cpuSeconds, bytes);
    }
}
