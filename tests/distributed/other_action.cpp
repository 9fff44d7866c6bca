// One action more than remote_actions has: a different program (distributed.different_programs).
#include <weft/distributed.hpp>

int other(int x) { return x + 1; }
WEFT_PLAIN_ACTION(other, other_action);
