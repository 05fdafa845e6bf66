@NullMarked
package dev.arbor.platform.http;

import org.jspecify.annotations.NullMarked;
