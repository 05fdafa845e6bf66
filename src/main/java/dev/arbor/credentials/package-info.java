@NullMarked
package dev.arbor.credentials;

import org.jspecify.annotations.NullMarked;
