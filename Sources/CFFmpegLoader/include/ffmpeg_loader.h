#ifndef PRACTICE_FFMPEG_LOADER_H
#define PRACTICE_FFMPEG_LOADER_H

/* FFmpeg's libraries are loaded on first use (dlopen), not linked, like aubio: libavcodec
   and libavformat pull in well over a hundred shared libraries, which every `practice`
   command (a WAV or FLAC included) would otherwise load at start-up. ffmpeg_loader.c
   defines the FFmpeg functions PracticeCore calls as forwarders to the loaded libraries;
   they do nothing (returning an error, NULL or 0) when the libraries cannot be loaded, and
   this says why (NULL once they are loaded). */
const char *practice_ffmpeg_load_error(void);

/* The same for the codec libraries only (libavutil, libswresample, libavcodec), without
   libavformat: what the hand-written demuxers need. */
const char *practice_ffmpeg_codec_load_error(void);

#endif
