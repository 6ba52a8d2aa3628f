#ifndef PRACTICE_CFFMPEG_SHIM_H
#define PRACTICE_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>

/* Error codes that are function-like macros in FFmpeg's headers, which Swift cannot call. */
static inline int practice_averror_eof(void) { return AVERROR_EOF; }
static inline int practice_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int practice_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int64_t practice_av_nopts_value(void) { return AV_NOPTS_VALUE; }

/* FFmpeg's log off: errors reach the user as the program's one line, never as FFmpeg's. */
static inline void practice_av_log_quiet(void) { av_log_set_level(AV_LOG_QUIET); }

/* av_strerror into a caller-owned buffer; returns the buffer. */
static inline const char *practice_av_strerror(int code, char *buffer, size_t size) {
  if (av_strerror(code, buffer, size) < 0) {
    snprintf(buffer, size, "FFmpeg error %d", code);
  }
  return buffer;
}
#endif
