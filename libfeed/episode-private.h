/* Layouts of an episode and its parts; only the parser fills them. */
#ifndef FEED_EPISODE_PRIVATE_H
#define FEED_EPISODE_PRIVATE_H

#include "feed/episode.h"
#include "feed/funding.h"

struct FeedEnclosure {
	char *url;        /* NULL when unusable */
	char *mime_type;  /* never NULL */
	gint64 file_size; /* bytes; -1 means unknown */
};

struct FeedAlternateEnclosure {
	char *mime_type;  /* NULL when absent */
	gint64 file_size; /* bytes; -1 means unknown */
	double bitrate;   /* bits per second; 0 means unknown */
	char *title;      /* NULL when absent */
	gboolean is_default;
	GPtrArray *sources; /* of char * (NULL entries: unusable); never NULL */
};

struct FeedChapter {
	gint64 start; /* milliseconds from the episode's start */
	gint64 end;   /* milliseconds; -1 means unknown */
	char *title;  /* never NULL; "" when the chapter has none */
	char *href;   /* NULL when absent */
	char *image;  /* NULL when absent */
	gboolean toc; /* FALSE: not a jump point (JSON `toc: false`) */
};

struct FeedPerson {
	char *name;  /* never NULL */
	char *role;  /* never NULL */
	char *group; /* never NULL */
	char *href;  /* NULL when absent */
	char *image; /* NULL when absent */
};

struct FeedTranscript {
	char *url;       /* never NULL */
	char *mime_type; /* NULL when absent */
	char *language;  /* NULL when absent */
	char *rel;       /* NULL when absent */
};

struct FeedFunding {
	char *url;  /* never NULL */
	char *text; /* never NULL */
};

struct FeedEpisode {
	gatomicrefcount ref;

	char *guid;             /* NULL when there is none */
	char *title;            /* NULL when there is none */
	char *link;             /* never NULL once finished */
	char *description;      /* never NULL once finished */
	char *description_html; /* NULL when absent */
	gint64 published;       /* Unix seconds; 0 means unknown */
	gint64 total_time;      /* seconds; 0 means unknown */
	char *payment_url;      /* NULL when absent */
	gint64 number;          /* 0 means absent */
	gint64 season;          /* -1 means absent */
	gint64 podcast_episode; /* 0 means absent */
	gint64 podcast_season;  /* -1 means absent */
	FeedEpisodeType episode_type;
	char *subtitle;      /* NULL when absent */
	char *itunes_author; /* NULL when absent */
	FeedTristate explicit_;
	FeedTristate block;
	char *image_url;    /* NULL when absent */
	char *chapters_url; /* NULL when absent */

	/* Each NULL while empty: most episodes have few of these. */
	GPtrArray *enclosures;  /* of FeedEnclosure */
	GPtrArray *alternates;  /* of FeedAlternateEnclosure */
	GPtrArray *chapters;    /* of FeedChapter */
	GPtrArray *transcripts; /* of FeedTranscript */
	GPtrArray *persons;     /* of FeedPerson */
};

G_GNUC_INTERNAL
FeedEpisode *
feed_episode_new(void);

G_GNUC_INTERNAL
void
feed_enclosure_free(FeedEnclosure *enclosure);

G_GNUC_INTERNAL
void
feed_alternate_enclosure_free(FeedAlternateEnclosure *alternate);

G_GNUC_INTERNAL
void
feed_chapter_free(FeedChapter *chapter);

G_GNUC_INTERNAL
FeedChapter *
feed_chapter_copy(const FeedChapter *chapter);

G_GNUC_INTERNAL
void
feed_person_free(FeedPerson *person);

G_GNUC_INTERNAL
void
feed_transcript_free(FeedTranscript *transcript);

G_GNUC_INTERNAL
void
feed_funding_free(FeedFunding *funding);

/* Appends @item to *@array, creating it with @free_func when NULL. */
G_GNUC_INTERNAL
void
feed_ptr_array_add(GPtrArray **array, gpointer item, GDestroyNotify free_func);

#endif
