package dev.engram.memory.onnx;

/**
 * Settings that must be in place before the first DJL class loads: DJL otherwise calls home (instance
 * metadata and a tracking bucket). Kept in its own class so that nothing DJL is loaded before it runs.
 */
final class NativeSetup {
    private static volatile boolean done;

    private NativeSetup() {
    }

    static void init() {
        if (done) {
            return;
        }
        synchronized (NativeSetup.class) {
            if (System.getProperty("ai.djl.offline") == null) {
                System.setProperty("ai.djl.offline", "true");
            }
            done = true;
        }
    }
}
