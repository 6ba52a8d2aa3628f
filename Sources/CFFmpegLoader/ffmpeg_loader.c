#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/macros.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
#include "ffmpeg_loader.h"

/* The sonames of the libraries the headers describe. */
#define SONAME(lib, major) "lib" #lib ".so." AV_STRINGIFY(major)

/* The real functions, resolved once. */
static struct {
  void (*av_log_set_level)(int);
  int (*av_strerror)(int, char *, size_t);
  int64_t (*av_rescale_q)(int64_t, AVRational, AVRational);
  AVDictionaryEntry *(*av_dict_get)(const AVDictionary *, const char *, const AVDictionaryEntry *, int);
  int (*av_opt_set_double)(void *, const char *, double, int);
  void (*av_channel_layout_default)(AVChannelLayout *, int);
  int (*av_channel_layout_copy)(AVChannelLayout *, const AVChannelLayout *);
  void (*av_channel_layout_uninit)(AVChannelLayout *);
  AVFrame *(*av_frame_alloc)(void);
  void (*av_frame_free)(AVFrame **);
  void (*av_frame_unref)(AVFrame *);
  AVPacket *(*av_packet_alloc)(void);
  void (*av_packet_free)(AVPacket **);
  void (*av_packet_unref)(AVPacket *);
  uint8_t *(*av_packet_get_side_data)(const AVPacket *, enum AVPacketSideDataType, size_t *);
  uint8_t *(*av_packet_new_side_data)(AVPacket *, enum AVPacketSideDataType, size_t);
  const AVCodec *(*avcodec_find_decoder)(enum AVCodecID);
  const char *(*avcodec_get_name)(enum AVCodecID);
  AVCodecContext *(*avcodec_alloc_context3)(const AVCodec *);
  void (*avcodec_free_context)(AVCodecContext **);
  int (*avcodec_parameters_to_context)(AVCodecContext *, const AVCodecParameters *);
  int (*avcodec_open2)(AVCodecContext *, const AVCodec *, AVDictionary **);
  int (*avcodec_send_packet)(AVCodecContext *, const AVPacket *);
  int (*avcodec_receive_frame)(AVCodecContext *, AVFrame *);
  void (*avcodec_flush_buffers)(AVCodecContext *);
  int (*avformat_open_input)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **);
  int (*avformat_find_stream_info)(AVFormatContext *, AVDictionary **);
  int (*av_find_best_stream)(AVFormatContext *, enum AVMediaType, int, int, const AVCodec **, int);
  void (*avformat_close_input)(AVFormatContext **);
  int (*av_read_frame)(AVFormatContext *, AVPacket *);
  int (*avformat_seek_file)(AVFormatContext *, int, int64_t, int64_t, int64_t, int);
  int (*swr_alloc_set_opts2)(struct SwrContext **, AVChannelLayout *, enum AVSampleFormat, int,
                             AVChannelLayout *, enum AVSampleFormat, int, int, void *);
  int (*swr_init)(struct SwrContext *);
  void (*swr_free)(struct SwrContext **);
  int (*swr_convert)(struct SwrContext *, uint8_t **, int, const uint8_t **, int);
  int (*swr_get_out_samples)(struct SwrContext *, int);
  void *(*av_mallocz)(size_t);
  /* Encoding and muxing (render -o FILE.m4a). */
  int (*av_frame_get_buffer)(AVFrame *, int);
  int (*av_frame_make_writable)(AVFrame *);
  int (*av_dict_set)(AVDictionary **, const char *, const char *, int);
  const AVCodec *(*avcodec_find_encoder_by_name)(const char *);
  int (*avcodec_send_frame)(AVCodecContext *, const AVFrame *);
  int (*avcodec_receive_packet)(AVCodecContext *, AVPacket *);
  int (*avcodec_parameters_from_context)(AVCodecParameters *, const AVCodecContext *);
  void (*av_packet_rescale_ts)(AVPacket *, AVRational, AVRational);
  int (*avformat_alloc_output_context2)(AVFormatContext **, const AVOutputFormat *, const char *,
                                        const char *);
  AVStream *(*avformat_new_stream)(AVFormatContext *, const AVCodec *);
  int (*avio_open)(AVIOContext **, const char *, int);
  int (*avio_closep)(AVIOContext **);
  int (*avformat_write_header)(AVFormatContext *, AVDictionary **);
  int (*av_interleaved_write_frame)(AVFormatContext *, AVPacket *);
  int (*av_write_trailer)(AVFormatContext *);
  void (*avformat_free_context)(AVFormatContext *);
} real;

/* Two stages: the codec libraries (libavutil, libswresample, libavcodec), enough for the
   packets of the hand-written MP4 demuxer, and libavformat, loaded only for the files that
   need FFmpeg's demuxers (Debian's libavformat alone adds ~40 libraries and ~20 ms). */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_once_t format_once = PTHREAD_ONCE_INIT;
static const char *load_error = NULL;
static char load_message[512];
static const char *format_load_error = NULL;
static char format_load_message[512];

/* RTLD_LAZY: Debian links the four FFmpeg libraries themselves with BIND_NOW, so a symbol
   they lack still fails here, and every function practice calls is taken by dlsym and
   checked (RESOLVE); lazy binding only defers the ~50 dependencies built without BIND_NOW
   (libx264, libX11, libzmq, libbluray…), which audio decoding never calls: 24,662 symbol
   relocations at load instead of 30,042 (LD_DEBUG=statistics). RTLD_LOCAL: their symbols
   stay out of the global namespace, where libsndfile's libmpg123 and libopus also live. */
static void *open_library(const char *name, const char **error, char *message, size_t size) {
  void *library = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
  if (library == NULL && *error == NULL) {
    snprintf(message, size, "%s", dlerror());
    *error = message;
  }
  return library;
}

#define RESOLVE_INTO(library, name, error, message)                         \
  *(void **)(&real.name) = dlsym(library, #name);                           \
  if (real.name == NULL) {                                                  \
    snprintf(message, sizeof message, "FFmpeg's lib" #library               \
             " lacks " #name);                                              \
    error = message;                                                        \
    return;                                                                 \
  }

static void load(void) {
  void *avutil = open_library(SONAME(avutil, LIBAVUTIL_VERSION_MAJOR), &load_error,
                              load_message, sizeof load_message);
  void *swresample = open_library(SONAME(swresample, LIBSWRESAMPLE_VERSION_MAJOR), &load_error,
                                  load_message, sizeof load_message);
  void *avcodec = open_library(SONAME(avcodec, LIBAVCODEC_VERSION_MAJOR), &load_error,
                               load_message, sizeof load_message);
  if (load_error != NULL) return;
#define RESOLVE(library, name) RESOLVE_INTO(library, name, load_error, load_message)
  RESOLVE(avutil, av_log_set_level)
  RESOLVE(avutil, av_strerror)
  RESOLVE(avutil, av_rescale_q)
  RESOLVE(avutil, av_dict_get)
  RESOLVE(avutil, av_opt_set_double)
  RESOLVE(avutil, av_channel_layout_default)
  RESOLVE(avutil, av_channel_layout_copy)
  RESOLVE(avutil, av_channel_layout_uninit)
  RESOLVE(avutil, av_frame_alloc)
  RESOLVE(avutil, av_frame_free)
  RESOLVE(avutil, av_frame_unref)
  RESOLVE(avcodec, av_packet_alloc)
  RESOLVE(avcodec, av_packet_free)
  RESOLVE(avcodec, av_packet_unref)
  RESOLVE(avcodec, av_packet_get_side_data)
  RESOLVE(avcodec, av_packet_new_side_data)
  RESOLVE(avcodec, avcodec_find_decoder)
  RESOLVE(avcodec, avcodec_get_name)
  RESOLVE(avcodec, avcodec_alloc_context3)
  RESOLVE(avcodec, avcodec_free_context)
  RESOLVE(avcodec, avcodec_parameters_to_context)
  RESOLVE(avcodec, avcodec_open2)
  RESOLVE(avcodec, avcodec_send_packet)
  RESOLVE(avcodec, avcodec_receive_frame)
  RESOLVE(avcodec, avcodec_flush_buffers)
  RESOLVE(swresample, swr_alloc_set_opts2)
  RESOLVE(swresample, swr_init)
  RESOLVE(swresample, swr_free)
  RESOLVE(swresample, swr_convert)
  RESOLVE(swresample, swr_get_out_samples)
  RESOLVE(avutil, av_mallocz)
  RESOLVE(avutil, av_frame_get_buffer)
  RESOLVE(avutil, av_frame_make_writable)
  RESOLVE(avutil, av_dict_set)
  RESOLVE(avcodec, avcodec_find_encoder_by_name)
  RESOLVE(avcodec, avcodec_send_frame)
  RESOLVE(avcodec, avcodec_receive_packet)
  RESOLVE(avcodec, avcodec_parameters_from_context)
  RESOLVE(avcodec, av_packet_rescale_ts)
#undef RESOLVE
}

static void load_format(void) {
  pthread_once(&once, load);
  if (load_error != NULL) {
    format_load_error = load_error;
    return;
  }
  void *avformat = open_library(SONAME(avformat, LIBAVFORMAT_VERSION_MAJOR), &format_load_error,
                                format_load_message, sizeof format_load_message);
  if (format_load_error != NULL) return;
#define RESOLVE(library, name) RESOLVE_INTO(library, name, format_load_error, format_load_message)
  RESOLVE(avformat, avformat_open_input)
  RESOLVE(avformat, avformat_find_stream_info)
  RESOLVE(avformat, av_find_best_stream)
  RESOLVE(avformat, avformat_close_input)
  RESOLVE(avformat, av_read_frame)
  RESOLVE(avformat, avformat_seek_file)
  RESOLVE(avformat, avformat_alloc_output_context2)
  RESOLVE(avformat, avformat_new_stream)
  RESOLVE(avformat, avio_open)
  RESOLVE(avformat, avio_closep)
  RESOLVE(avformat, avformat_write_header)
  RESOLVE(avformat, av_interleaved_write_frame)
  RESOLVE(avformat, av_write_trailer)
  RESOLVE(avformat, avformat_free_context)
#undef RESOLVE
}

/* Whether every function was resolved (loads on first call). */
static int ready(void) {
  pthread_once(&once, load);
  return load_error == NULL;
}

/* Whether libavformat's functions were resolved too (loads it on first call). */
static int format_ready(void) {
  pthread_once(&format_once, load_format);
  return format_load_error == NULL;
}

const char *practice_ffmpeg_codec_load_error(void) { return ready() ? NULL : load_error; }
const char *practice_ffmpeg_load_error(void) { return format_ready() ? NULL : format_load_error; }

#define NOT_LOADED AVERROR(ENOSYS)

/* The functions that free or release do nothing for NULL, as FFmpeg's own, and load
   nothing: what was never allocated needs no library. */

void av_log_set_level(int level) { if (ready()) real.av_log_set_level(level); }
int av_strerror(int errnum, char *errbuf, size_t errbuf_size) {
  return ready() ? real.av_strerror(errnum, errbuf, errbuf_size) : -1;
}
int64_t av_rescale_q(int64_t a, AVRational bq, AVRational cq) {
  return ready() ? real.av_rescale_q(a, bq, cq) : 0;
}
AVDictionaryEntry *av_dict_get(const AVDictionary *m, const char *key,
                               const AVDictionaryEntry *prev, int flags) {
  return ready() ? real.av_dict_get(m, key, prev, flags) : NULL;
}
int av_opt_set_double(void *obj, const char *name, double val, int search_flags) {
  return ready() ? real.av_opt_set_double(obj, name, val, search_flags) : NOT_LOADED;
}
void av_channel_layout_default(AVChannelLayout *ch_layout, int nb_channels) {
  if (ready()) real.av_channel_layout_default(ch_layout, nb_channels);
}
int av_channel_layout_copy(AVChannelLayout *dst, const AVChannelLayout *src) {
  return ready() ? real.av_channel_layout_copy(dst, src) : NOT_LOADED;
}
void av_channel_layout_uninit(AVChannelLayout *channel_layout) {
  if (ready()) real.av_channel_layout_uninit(channel_layout);
}
AVFrame *av_frame_alloc(void) { return ready() ? real.av_frame_alloc() : NULL; }
void av_frame_free(AVFrame **frame) { if (frame && *frame && ready()) real.av_frame_free(frame); }
void av_frame_unref(AVFrame *frame) { if (frame && ready()) real.av_frame_unref(frame); }
AVPacket *av_packet_alloc(void) { return ready() ? real.av_packet_alloc() : NULL; }
void av_packet_free(AVPacket **pkt) { if (pkt && *pkt && ready()) real.av_packet_free(pkt); }
void av_packet_unref(AVPacket *pkt) { if (pkt && ready()) real.av_packet_unref(pkt); }
uint8_t *av_packet_get_side_data(const AVPacket *pkt, enum AVPacketSideDataType type,
                                 size_t *size) {
  return ready() ? real.av_packet_get_side_data(pkt, type, size) : NULL;
}
uint8_t *av_packet_new_side_data(AVPacket *pkt, enum AVPacketSideDataType type, size_t size) {
  return ready() ? real.av_packet_new_side_data(pkt, type, size) : NULL;
}
const AVCodec *avcodec_find_decoder(enum AVCodecID id) {
  return ready() ? real.avcodec_find_decoder(id) : NULL;
}
const char *avcodec_get_name(enum AVCodecID id) {
  return ready() ? real.avcodec_get_name(id) : "unknown";
}
AVCodecContext *avcodec_alloc_context3(const AVCodec *codec) {
  return ready() ? real.avcodec_alloc_context3(codec) : NULL;
}
void avcodec_free_context(AVCodecContext **avctx) {
  if (avctx && *avctx && ready()) real.avcodec_free_context(avctx);
}
int avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par) {
  return ready() ? real.avcodec_parameters_to_context(codec, par) : NOT_LOADED;
}
int avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options) {
  return ready() ? real.avcodec_open2(avctx, codec, options) : NOT_LOADED;
}
int avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt) {
  return ready() ? real.avcodec_send_packet(avctx, avpkt) : NOT_LOADED;
}
int avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame) {
  return ready() ? real.avcodec_receive_frame(avctx, frame) : NOT_LOADED;
}
void avcodec_flush_buffers(AVCodecContext *avctx) { if (ready()) real.avcodec_flush_buffers(avctx); }
int avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt,
                        AVDictionary **options) {
  return format_ready() ? real.avformat_open_input(ps, url, fmt, options) : NOT_LOADED;
}
int avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options) {
  return format_ready() ? real.avformat_find_stream_info(ic, options) : NOT_LOADED;
}
int av_find_best_stream(AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb,
                        int related_stream, const AVCodec **decoder_ret, int flags) {
  if (!format_ready()) return NOT_LOADED;
  return real.av_find_best_stream(ic, type, wanted_stream_nb, related_stream, decoder_ret, flags);
}
void avformat_close_input(AVFormatContext **s) {
  if (s && *s && format_ready()) real.avformat_close_input(s);
}
int av_read_frame(AVFormatContext *s, AVPacket *pkt) {
  return format_ready() ? real.av_read_frame(s, pkt) : NOT_LOADED;
}
int avformat_seek_file(AVFormatContext *s, int stream_index, int64_t min_ts, int64_t ts,
                       int64_t max_ts, int flags) {
  return format_ready() ? real.avformat_seek_file(s, stream_index, min_ts, ts, max_ts, flags) : NOT_LOADED;
}
int swr_alloc_set_opts2(struct SwrContext **ps, AVChannelLayout *out_ch_layout,
                        enum AVSampleFormat out_sample_fmt, int out_sample_rate,
                        AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt,
                        int in_sample_rate, int log_offset, void *log_ctx) {
  return ready() ? real.swr_alloc_set_opts2(ps, out_ch_layout, out_sample_fmt, out_sample_rate,
                                            in_ch_layout, in_sample_fmt, in_sample_rate,
                                            log_offset, log_ctx)
                 : NOT_LOADED;
}
void *av_mallocz(size_t size) { return ready() ? real.av_mallocz(size) : NULL; }
int swr_init(struct SwrContext *s) { return ready() ? real.swr_init(s) : NOT_LOADED; }
void swr_free(struct SwrContext **s) { if (s && *s && ready()) real.swr_free(s); }
int swr_convert(struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in,
                int in_count) {
  return ready() ? real.swr_convert(s, out, out_count, in, in_count) : NOT_LOADED;
}
int swr_get_out_samples(struct SwrContext *s, int in_samples) {
  return ready() ? real.swr_get_out_samples(s, in_samples) : NOT_LOADED;
}

/* Encoding and muxing (render -o FILE.m4a). */
int av_frame_get_buffer(AVFrame *frame, int align) {
  return ready() ? real.av_frame_get_buffer(frame, align) : NOT_LOADED;
}
int av_frame_make_writable(AVFrame *frame) {
  return ready() ? real.av_frame_make_writable(frame) : NOT_LOADED;
}
int av_dict_set(AVDictionary **pm, const char *key, const char *value, int flags) {
  return ready() ? real.av_dict_set(pm, key, value, flags) : NOT_LOADED;
}
const AVCodec *avcodec_find_encoder_by_name(const char *name) {
  return ready() ? real.avcodec_find_encoder_by_name(name) : NULL;
}
int avcodec_send_frame(AVCodecContext *avctx, const AVFrame *frame) {
  return ready() ? real.avcodec_send_frame(avctx, frame) : NOT_LOADED;
}
int avcodec_receive_packet(AVCodecContext *avctx, AVPacket *avpkt) {
  return ready() ? real.avcodec_receive_packet(avctx, avpkt) : NOT_LOADED;
}
int avcodec_parameters_from_context(AVCodecParameters *par, const AVCodecContext *codec) {
  return ready() ? real.avcodec_parameters_from_context(par, codec) : NOT_LOADED;
}
void av_packet_rescale_ts(AVPacket *pkt, AVRational tb_src, AVRational tb_dst) {
  if (ready()) real.av_packet_rescale_ts(pkt, tb_src, tb_dst);
}
int avformat_alloc_output_context2(AVFormatContext **ctx, const AVOutputFormat *oformat,
                                   const char *format_name, const char *filename) {
  if (!format_ready()) return NOT_LOADED;
  return real.avformat_alloc_output_context2(ctx, oformat, format_name, filename);
}
AVStream *avformat_new_stream(AVFormatContext *s, const AVCodec *c) {
  return format_ready() ? real.avformat_new_stream(s, c) : NULL;
}
int avio_open(AVIOContext **s, const char *url, int flags) {
  return format_ready() ? real.avio_open(s, url, flags) : NOT_LOADED;
}
int avio_closep(AVIOContext **s) {
  if (s == NULL || *s == NULL) return 0;
  return format_ready() ? real.avio_closep(s) : NOT_LOADED;
}
int avformat_write_header(AVFormatContext *s, AVDictionary **options) {
  return format_ready() ? real.avformat_write_header(s, options) : NOT_LOADED;
}
int av_interleaved_write_frame(AVFormatContext *s, AVPacket *pkt) {
  return format_ready() ? real.av_interleaved_write_frame(s, pkt) : NOT_LOADED;
}
int av_write_trailer(AVFormatContext *s) {
  return format_ready() ? real.av_write_trailer(s) : NOT_LOADED;
}
void avformat_free_context(AVFormatContext *s) {
  if (s && format_ready()) real.avformat_free_context(s);
}
