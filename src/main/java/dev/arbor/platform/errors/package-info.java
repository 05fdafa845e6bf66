@NullMarked
package dev.arbor.platform.errors;

import org.jspecify.annotations.NullMarked;
