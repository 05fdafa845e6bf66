package dev.arbor.platform.secrets;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.config.ConfigException;
import dev.arbor.platform.config.StorageSettings;
import dev.arbor.platform.ids.Ids;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Set;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encrypts secrets at rest with AES-256-GCM. Every sealed value is bound to a context string (say
 * {@code gateway:gw_01...:credentials}), so a value copied into another row does not open there.
 *
 * <p>Format: {@code v1.<key id>.<base64url(nonce | ciphertext | tag)>}; the key id tells a value sealed with another
 * key apart from a damaged one.
 */
public final class SecretBox {
    private static final Logger LOG = LoggerFactory.getLogger(SecretBox.class);
    private static final String KEY_FILE = "secret.key";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final SecretKeySpec key;
    private final String keyId;

    public SecretBox(byte[] key) {
        requireNonNull(key, "key");
        if (key.length != 32) {
            throw new ConfigException("the secret key must be 32 bytes (base64 of 32 random bytes), not " + key.length);
        }
        this.key = new SecretKeySpec(key.clone(), "AES");
        this.keyId = fingerprint(key);
    }

    /** The key from {@code ARBOR_SECRET_KEY}, or from the data folder's key file, made on first start. */
    public static SecretBox forStorage(StorageSettings config) {
        if (config.secretKey().isPresent()) {
            try {
                return new SecretBox(
                        Base64.getDecoder().decode(config.secretKey().get()));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("ARBOR_SECRET_KEY must be base64 of 32 random bytes");
            }
        }
        return new SecretBox(keyFile(config.dataDir().resolve(KEY_FILE)));
    }

    /**
     * A key for another purpose (such as the HMACs that stand in for sensitive values), derived from this one so
     * that one secret protects the install: HMAC-SHA256 of the purpose under this key.
     */
    public byte[] derive(String purpose) {
        requireNonNull(purpose, "purpose");
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.getEncoded(), "HmacSHA256"));
            return mac.doFinal(("arbor/" + purpose).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    public String seal(String plaintext, String context) {
        requireNonNull(plaintext, "plaintext");
        byte[] nonce = Ids.randomBytes(NONCE_BYTES);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            byte[] out = ByteBuffer.allocate(NONCE_BYTES + sealed.length)
                    .put(nonce)
                    .put(sealed)
                    .array();
            return "v1." + keyId + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    public String open(String sealed, String context) {
        requireNonNull(sealed, "sealed");
        String[] parts = sealed.split("\\.", 3);
        if (parts.length != 3 || !parts[0].equals("v1")) {
            throw new SecretException("not a sealed secret");
        }
        if (!parts[1].equals(keyId)) {
            throw new SecretException(
                    "this secret was sealed with another key (" + parts[1] + "); set ARBOR_SECRET_KEY to that key");
        }
        try {
            byte[] all = Base64.getUrlDecoder().decode(parts[2]);
            if (all.length < NONCE_BYTES + TAG_BITS / 8) {
                throw new SecretException("the sealed secret is truncated");
            }
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, all, 0, NONCE_BYTES));
            cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
            byte[] plain = cipher.doFinal(all, NONCE_BYTES, all.length - NONCE_BYTES);
            return new String(plain, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException | javax.crypto.AEADBadTagException e) {
            throw new SecretException("the sealed secret is damaged or belongs to another record");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    private static byte[] keyFile(Path file) {
        try {
            Files.createDirectories(file.getParent());
            if (!Files.exists(file)) {
                byte[] key = Ids.randomBytes(32);
                try {
                    Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                    Files.writeString(file, Base64.getEncoder().encodeToString(key) + "\n");
                    LOG.info(
                            "made a new secret key in {}; keep it with the data, secrets cannot be read without it",
                            file.getFileName());
                    return key;
                } catch (FileAlreadyExistsException raced) {
                    // another process made it first: read theirs
                }
            }
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            if (!OWNER_ONLY.containsAll(permissions)) {
                Files.setPosixFilePermissions(file, OWNER_ONLY);
                LOG.warn("the secret key file was readable by others; it is now readable by its owner only");
            }
            return Base64.getDecoder().decode(Files.readString(file).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the secret key file " + file, e);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("the secret key file " + file + " does not hold a base64 key");
        }
    }

    private static String fingerprint(byte[] key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key);
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
