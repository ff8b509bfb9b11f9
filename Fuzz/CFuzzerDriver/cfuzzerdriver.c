// The declaration in include/ is all this module is for: Swift calls libFuzzer's driver through it.
#include "cfuzzerdriver.h"
