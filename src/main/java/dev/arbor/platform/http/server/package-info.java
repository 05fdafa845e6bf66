@NullMarked
package dev.arbor.platform.http.server;

import org.jspecify.annotations.NullMarked;
