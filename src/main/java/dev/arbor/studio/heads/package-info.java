@NullMarked
package dev.arbor.studio.heads;

import org.jspecify.annotations.NullMarked;
