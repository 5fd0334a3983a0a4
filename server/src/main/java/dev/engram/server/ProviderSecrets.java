package dev.engram.server;

import io.helidon.http.Status;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the credentials of registered providers before the store keeps them: AES-GCM (the JDK's {@code javax.crypto})
 * with a key from the operator's environment, {@value #KEY_VARIABLE} (base64 of 16, 24 or 32 bytes, e.g. {@code openssl
 * rand -base64 32}), a random 96-bit nonce per secret, and the provider's name as associated data, so that a sealed key
 * cannot be moved to another provider's row. Without the variable nothing can be sealed: registering a provider is
 * refused, naming the variable. The store never sees a key in the clear, and no response shows one.
 */
final class ProviderSecrets {
    /** The environment variable that holds the sealing key. */
    static final String KEY_VARIABLE = "ENGRAM_SECRETS_KEY";
    private static final String FORMAT = "aesgcm1:";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Optional<SecretKey> key;

    private ProviderSecrets(Optional<SecretKey> key) {
        this.key = key;
    }

    /**
     * The secrets of an environment; without {@value #KEY_VARIABLE}, secrets that refuse to seal.
     *
     * @throws IllegalArgumentException if the variable is set but is not base64 of 16, 24 or 32 bytes
     */
    static ProviderSecrets from(Map<String, String> env) {
        String value = env.getOrDefault(KEY_VARIABLE, "").strip();
        if (value.isEmpty()) {
            return new ProviderSecrets(Optional.empty());
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(KEY_VARIABLE + " is not base64; set it to 32 random bytes in base64 "
                    + "(openssl rand -base64 32)");
        }
        if (bytes.length != 16 && bytes.length != 24 && bytes.length != 32) {
            throw new IllegalArgumentException(KEY_VARIABLE + " holds " + bytes.length + " bytes; an AES key is 16, 24 or "
                    + "32 bytes: set it to 32 random bytes in base64 (openssl rand -base64 32)");
        }
        return new ProviderSecrets(Optional.of(new SecretKeySpec(bytes, "AES")));
    }

    /** Whether a key is configured. */
    boolean canSeal() {
        return key.isPresent();
    }

    /**
     * Seals {@code secret} for the provider {@code name}.
     *
     * @throws ApiException 501 when no key is configured, naming {@value #KEY_VARIABLE}
     */
    String seal(String name, String secret) {
        SecretKey k = key.orElseThrow(() -> ApiException.of(Status.NOT_IMPLEMENTED_501, "This server keeps no provider "
                + "credentials: its operator has not set " + KEY_VARIABLE + " (32 random bytes in base64, e.g. openssl rand "
                + "-base64 32), the key they are encrypted with. Nothing was stored."));
        try {
            byte[] nonce = new byte[12];
            RANDOM.nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, nonce));
            cipher.updateAAD(name.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(secret.getBytes(StandardCharsets.UTF_8));
            return FORMAT + Base64.getEncoder().encodeToString(ByteBuffer.allocate(nonce.length + sealed.length).put(nonce)
                    .put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available in this JVM", e);
        }
    }

    /**
     * The secret sealed for provider {@code name}; empty when no key is configured or the key is not the one it was
     * sealed with (the operator changed {@value #KEY_VARIABLE}: register the credentials again).
     */
    Optional<String> open(String name, String sealed) {
        if (key.isEmpty() || !sealed.startsWith(FORMAT)) {
            return Optional.empty();
        }
        try {
            byte[] all = Base64.getDecoder().decode(sealed.substring(FORMAT.length()));
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key.get(), new GCMParameterSpec(128, all, 0, 12));
            cipher.updateAAD(name.getBytes(StandardCharsets.UTF_8));
            return Optional.of(new String(cipher.doFinal(all, 12, all.length - 12), StandardCharsets.UTF_8));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
