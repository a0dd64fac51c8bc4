#include "rec_b.glsl"
