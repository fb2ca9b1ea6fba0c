# Who and what AttnLab is to the outside: the names and addresses that the desktop entry,
# the AppStream metainfo, the Debian package and the app itself must agree on. Included
# early so that app/ can compile the application id in.
#
# The project has no public home yet: the id, home page and screenshot addresses below are
# placeholders of the expected shape. Set them here (or with -D) once it is published
# (packaging/README.md).

# The reverse-DNS id of the desktop entry, the metainfo and the icon (one name for all three,
# as the AppStream and desktop-entry specifications want).
set(ATTNLAB_APP_ID "io.github.attnlab.AttnLab" CACHE STRING
    "Reverse-DNS application id of the desktop entry, AppStream metainfo and icon")
set(ATTNLAB_HOMEPAGE "https://github.com/attnlab/attnlab" CACHE STRING
    "Project home page, written into the package and the AppStream metainfo")
set(ATTNLAB_SCREENSHOT_URL "https://raw.githubusercontent.com/attnlab/attnlab/main/docs/figures"
    CACHE STRING "Where the AppStream screenshots (docs/figures/*.png) are published")
set(ATTNLAB_MAINTAINER "AttnLab maintainers <maintainers@users.noreply.a-seed-84edde27.example>"
    CACHE STRING "Maintainer of the Debian package (Name <address>)")
# The date of this version's release notes (metainfo) and changelog entry.
set(ATTNLAB_RELEASE_DATE "2026-11-24")

