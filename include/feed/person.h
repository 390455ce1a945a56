/* People credited by a feed or an episode (podcast:person). */
#ifndef FEED_PERSON_H
#define FEED_PERSON_H

#include <feed/version.h>
#include <glib.h>

G_BEGIN_DECLS

/** One `podcast:person`. Owned by its channel or episode and immutable. */
typedef struct FeedPerson FeedPerson;

/**
 * Returns the person's name.
 *
 * @param person a person
 * @return (transfer none) the name, never NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_person_get_name(const FeedPerson *person);

/**
 * Returns the person's role, lower-cased.
 *
 * @param person a person
 * @return (transfer none) the role, `host` when the feed gave none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_person_get_role(const FeedPerson *person);

/**
 * Returns the person's group, lower-cased.
 *
 * @param person a person
 * @return (transfer none) the group, `cast` when the feed gave none
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_person_get_group(const FeedPerson *person);

/**
 * Returns the person's web page.
 *
 * @param person a person
 * @return (transfer none) (nullable) the resolved `href`, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_person_get_href(const FeedPerson *person);

/**
 * Returns the person's picture.
 *
 * @param person a person
 * @return (transfer none) (nullable) the resolved `img` URL, or NULL
 * @since 0.1
 */
FEED_PUBLIC
const char *
feed_person_get_image(const FeedPerson *person);

G_END_DECLS

#endif
