@NullMarked
package dev.arbor.platform.references;

import org.jspecify.annotations.NullMarked;
