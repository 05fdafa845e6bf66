@NullMarked
package dev.arbor.studio;

import org.jspecify.annotations.NullMarked;
