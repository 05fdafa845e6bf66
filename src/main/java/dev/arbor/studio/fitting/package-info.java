@NullMarked
package dev.arbor.studio.fitting;

import org.jspecify.annotations.NullMarked;
