@NullMarked
package dev.arbor.models;

import org.jspecify.annotations.NullMarked;
