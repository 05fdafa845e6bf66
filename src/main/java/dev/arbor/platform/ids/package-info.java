@NullMarked
package dev.arbor.platform.ids;

import org.jspecify.annotations.NullMarked;
