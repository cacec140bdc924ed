/** An application that uses txoutbox from the Java module path; not published. */
package dev.txoutbox.itmodulepath;
