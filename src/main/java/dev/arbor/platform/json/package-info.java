@NullMarked
package dev.arbor.platform.json;

import org.jspecify.annotations.NullMarked;
