package dev.engram.agents;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.EncodingRegistry;

/** jtokkit's encodings, loaded once and lazily from the tables bundled in its jar (no download). */
final class JtokkitEncodings {
    static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

    private JtokkitEncodings() {
    }
}
