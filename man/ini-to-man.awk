# playola.ini(5) from the documented sample configuration, etc/playola.ini: its comments become the page's
# text and its keys the page's entries, so the page states the same facts as the file the package ships.
#   awk -v version=0.1.0 -f man/ini-to-man.awk etc/playola.ini > playola.ini.5
# In the file: a comment block before the first section is the description; "[section]" starts a section;
# the comment lines before "key = value" describe that key; a commented-out "; key = value" right after a
# comment block is an optional key shown with its example value.

function roff(text) {
    gsub(/\\/, "\\e", text)
    gsub(/-/, "\\-", text)
    if (text ~ /^[.']/) text = "\\&" text
    return text
}

# Comment lines waiting for the key (or section) they describe.
function flush(    i) {
    for (i = 1; i <= pending; i++) print lines[i]
    pending = 0
}

function hold(text) {
    if (text == "") { lines[++pending] = in_entry ? ".IP" : ".PP"; return }
    # An indented line (a list, a command) keeps its line.
    lines[++pending] = text ~ /^  / ? ".nf\n" roff(text) "\n.fi" : roff(text)
}

function entry(key, value) {
    print ".TP"
    print "\\fB" roff(key) "\\fR = \\fI" roff(value) "\\fR"
    in_entry = 1
    flush()
}

BEGIN {
    print ".TH PLAYOLA.INI 5 2026-11-30 \"playola " version "\" \"Playola Appliance\""
    print ".SH NAME"
    print "playola.ini \\- the configuration of the Playola radio appliance"
    print ".SH SYNOPSIS"
    print "/boot/firmware/playola.ini, /etc/playola.ini"
    print ".SH DESCRIPTION"
    print "An INI file read by"
    print ".BR \"playola run\" ;"
    print "checked by"
    print ".BR \"playola check\\-config\" ."
    print "What follows is the sample file the package installs as /etc/playola.ini, section by section: each key"
    print "is shown with its default (or an example, where it says so) and what it does."
    print ".PP"
    in_header = 1
}

# A commented-out section ("; [fleet]"): off unless it is written, so its keys are all commented out too.
/^[;#] ?\[[a-z]+\]$/ {
    if (in_header) { flush(); in_header = 0; print ".SH SECTIONS" }
    name = $0
    sub(/^[;#] ?/, "", name)
    gsub(/[][]/, "", name)
    in_entry = 0
    print ".SS [" roff(name) "]"
    flush()
    next
}

/^[;#]/ {
    text = $0
    sub(/^[;#] ?/, "", text)
    # A commented-out key right after its description: an optional key.
    if (pending > 0 && !in_header && match(text, /^[a-z_]+( [A-Za-z0-9_.-]+)? = /)) {
        split(text, parts, / = /)
        entry(parts[1], substr(text, length(parts[1]) + 4))
        next
    }
    hold(text)
    next
}

/^[ \t]*$/ {
    if (in_header) { flush(); print ".PP"; next }
    # A blank line ends the comments about a key; the next comments stand on their own.
    if (pending > 0) { print ".PP"; in_entry = 0; flush() }
    next
}

/^\[/ {
    if (in_header) { flush(); in_header = 0; print ".SH SECTIONS" }
    name = $0
    gsub(/[][]/, "", name)
    in_entry = 0
    print ".SS [" roff(name) "]"
    flush()
    next
}

/=/ {
    key = $0
    sub(/[ \t]*=.*/, "", key)
    value = $0
    sub(/^[^=]*=[ \t]*/, "", value)
    entry(key, value)
    next
}

END {
    flush()
    print ".SH FILES"
    print ".TP"
    print ".I /boot/firmware/playola.ini"
    print "Read when it exists (the Raspberry Pi image's boot partition, editable from any computer)."
    print ".TP"
    print ".I /etc/playola.ini"
    print "Read otherwise."
    print ".TP"
    print ".I /var/lib/playola/last\\-good.ini"
    print "The last file that passed the checks; the service runs on it while the file above has errors."
    print ".SH SEE ALSO"
    print ".BR playola (1)"
}
