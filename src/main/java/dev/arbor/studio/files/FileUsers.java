package dev.arbor.studio.files;

import java.util.Collection;
import java.util.Set;

/** Whatever keeps files: decisions and examples. Files ask it before they remove an old upload. */
public interface FileUsers {
    /** Of these file ids, those that something still uses. */
    Set<String> inUse(Collection<String> fileIds);
}
