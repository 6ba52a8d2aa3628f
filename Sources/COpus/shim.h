#ifndef PRACTICE_COPUS_SHIM_H
#define PRACTICE_COPUS_SHIM_H
#include <opus.h>

/* opus_decoder_ctl is variadic, which Swift cannot call: the two requests used. */
static inline int practice_opus_reset(OpusDecoder *decoder) {
  return opus_decoder_ctl(decoder, OPUS_RESET_STATE);
}
static inline int practice_opus_set_gain(OpusDecoder *decoder, int gain_q8_db) {
  return opus_decoder_ctl(decoder, OPUS_SET_GAIN(gain_q8_db));
}
#endif
