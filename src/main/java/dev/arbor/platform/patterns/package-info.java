@NullMarked
package dev.arbor.platform.patterns;

import org.jspecify.annotations.NullMarked;
