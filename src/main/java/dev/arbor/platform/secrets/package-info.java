@NullMarked
package dev.arbor.platform.secrets;

import org.jspecify.annotations.NullMarked;
