#include "rec_a.glsl"
