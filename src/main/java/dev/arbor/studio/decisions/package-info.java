@NullMarked
package dev.arbor.studio.decisions;

import org.jspecify.annotations.NullMarked;
