# What `cmake --install` puts under the prefix besides the executables and the bridge (those
# are installed next to their targets): the preset configs, the documentation, the man
# pages and, for the GUI build, the desktop entry, AppStream metainfo and icons. Nothing
# installed refers to the source or build tree: the programs find their files relative to
# themselves.
#
#   <prefix>/bin/attnlab, attnlab-cli
#   <prefix>/lib/<arch>/attnlab/libattnlab_spbridge.so
#   <prefix>/share/attnlab/configs/*.toml
#   <prefix>/share/doc/attnlab/          README.md, docs/, copyright, changelog.gz
#   <prefix>/share/man/man1/             attnlab.1.gz, attnlab-cli.1.gz
#   <prefix>/share/applications/         <app id>.desktop
#   <prefix>/share/metainfo/             <app id>.metainfo.xml
#   <prefix>/share/icons/hicolor/        scalable/apps/<app id>.svg, NxN/apps/<app id>.png
#   <prefix>/share/lintian/overrides/    attnlab (why the programs carry a DT_RPATH)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/configs/
        DESTINATION ${ATTNLAB_DATA_SUBDIR}/configs
        FILES_MATCHING PATTERN "*.toml")

# The documentation keeps the source tree's relative layout so README.md's links work.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${ATTNLAB_DOC_SUBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${ATTNLAB_DOC_SUBDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg")
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright DESTINATION ${ATTNLAB_DOC_SUBDIR})

# The programs' DT_RPATH to the OpenMP OpenBLAS (cmake/AttnLabCompilerSetup.cmake) is
# deliberate; the override tells lintian why.
if(ATTNLAB_BLAS_DIR)
  configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/lintian-overrides.in
                 ${PROJECT_BINARY_DIR}/packaging/lintian-overrides @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/packaging/lintian-overrides
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides RENAME attnlab)
endif()

find_program(ATTNLAB_GZIP gzip)
set(_generated ${PROJECT_BINARY_DIR}/packaging)

# Debian wants every package's changelog; one template, configured with the version.
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in ${_generated}/changelog @ONLY)
add_custom_command(
  OUTPUT ${_generated}/changelog.gz
  COMMAND ${ATTNLAB_GZIP} -9nc ${_generated}/changelog > ${_generated}/changelog.gz
  DEPENDS ${_generated}/changelog
  COMMENT "Compressing the changelog")
add_custom_target(attnlab_changelog ALL DEPENDS ${_generated}/changelog.gz)
install(FILES ${_generated}/changelog.gz DESTINATION ${ATTNLAB_DOC_SUBDIR})

# Man pages from the programs' own --help (help2man), so they never drift from the options.
find_program(ATTNLAB_HELP2MAN help2man)
set(_man_pages "")
function(attnlab_man_page target name summary)
  set(page ${_generated}/man/${target}.1.gz)
  add_custom_command(
    OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${target}> -DNAME=${target}
            "-DSUMMARY=${summary}" -DHELP2MAN=${ATTNLAB_HELP2MAN} -DGZIP=${ATTNLAB_GZIP}
            -DINCLUDE=${PROJECT_SOURCE_DIR}/packaging/man/${target}.h2m -DOUT=${page}
            -P ${PROJECT_SOURCE_DIR}/cmake/AttnLabManPage.cmake
    DEPENDS ${target} ${PROJECT_SOURCE_DIR}/cmake/AttnLabManPage.cmake
            ${PROJECT_SOURCE_DIR}/packaging/man/${target}.h2m
    COMMENT "Generating the man page ${target}(1) from ${target} --help")
  set(_man_pages ${_man_pages} ${page} PARENT_SCOPE)
endfunction()
if(ATTNLAB_HELP2MAN AND ATTNLAB_GZIP)
  attnlab_man_page(attnlab-cli attnlab-cli "pretraining and attention analysis without a GUI")
  if(ATTNLAB_GUI)
    attnlab_man_page(attnlab attnlab "desktop workbench for attention research")
  endif()
  add_custom_target(attnlab_man_pages ALL DEPENDS ${_man_pages})
  install(FILES ${_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man or gzip not found: no man pages (packaging/install-deps.sh installs help2man)")
endif()

if(NOT ATTNLAB_GUI)
  return()
endif()

# --- desktop integration (the GUI build) -----------------------------------------------
configure_file(${PROJECT_SOURCE_DIR}/resources/desktop/attnlab.desktop.in
               ${_generated}/${ATTNLAB_APP_ID}.desktop @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/resources/desktop/attnlab.metainfo.xml.in
               ${_generated}/${ATTNLAB_APP_ID}.metainfo.xml @ONLY)
install(FILES ${_generated}/${ATTNLAB_APP_ID}.desktop
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/applications)
install(FILES ${_generated}/${ATTNLAB_APP_ID}.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/metainfo)

# The icon: drawn once as SVG, rendered to the hicolor theme's fixed sizes at build time.
set(_icon_svg ${PROJECT_SOURCE_DIR}/resources/icons/attnlab.svg)
install(FILES ${_icon_svg} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor/scalable/apps
        RENAME ${ATTNLAB_APP_ID}.svg)
find_program(ATTNLAB_RSVG_CONVERT rsvg-convert)
if(ATTNLAB_RSVG_CONVERT)
  set(_icon_pngs "")
  foreach(size IN ITEMS 16 24 32 48 64 128 256)
    set(png ${_generated}/icons/${size}x${size}/${ATTNLAB_APP_ID}.png)
    add_custom_command(
      OUTPUT ${png}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${_generated}/icons/${size}x${size}
      COMMAND ${ATTNLAB_RSVG_CONVERT} --width ${size} --height ${size} --output ${png} ${_icon_svg}
      DEPENDS ${_icon_svg}
      COMMENT "Rendering the ${size}x${size} icon")
    list(APPEND _icon_pngs ${png})
    install(FILES ${png} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/icons/hicolor/${size}x${size}/apps)
  endforeach()
  add_custom_target(attnlab_icons ALL DEPENDS ${_icon_pngs})
else()
  message(STATUS "rsvg-convert not found: only the SVG icon is installed (packaging/install-deps.sh installs librsvg2-bin)")
endif()
