@NullMarked
package dev.arbor.studio.files;

import org.jspecify.annotations.NullMarked;
