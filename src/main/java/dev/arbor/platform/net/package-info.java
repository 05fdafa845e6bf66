@NullMarked
package dev.arbor.platform.net;

import org.jspecify.annotations.NullMarked;
