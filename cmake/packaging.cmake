# The Debian package, made by CPack from the release build:
#   cmake --build build/release && (cd build/release && cpack -G DEB)
# gives build/release/attnlab_<version>_<arch>.deb with everything `cmake --install` puts
# under /usr (cmake/AttnLabInstall.cmake). packaging/test-package.sh builds, installs, runs
# and removes it; packaging/README.md explains the choices and lintian's remaining remarks.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attnlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "AttnLab")
set(CPACK_PACKAGE_CONTACT "${ATTNLAB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Release binaries without their symbol tables (Debian policy; lintian checks it).
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "workbench for attention research on BERT-style encoders")

# <name>_<version>_<arch>.deb, as dpkg names packages.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ATTNLAB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${ATTNLAB_HOMEPAGE}")
# The long description under the synopsis above; CPack indents the lines.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"AttnLab pretrains BERT and RoBERTa-style encoders with masked language
modelling (LibTorch) and puts the attention mechanisms of five papers behind
options that compose: attention guidance, position interactions with
learnable temperature and convolved attention, RealFormer's residual
attention, adversarial self-attention and SesameBERT.
.
The desktop app (attnlab) trains a run live and studies its attention:
heatmaps of any text through any checkpoint, entropy and Jensen-Shannon
divergence across layers, head summaries, coreference probes, the comparison
of runs and the papers' figures. attnlab-cli does the same training and
analyses on servers without a display.")

# Depends: the shared libraries' packages, computed by dpkg-shlibdeps from the binaries;
# plus what is loaded or read at run time and so invisible to it. LibTorch's OpenMP
# intra-op pool must share its OpenMP runtime with BLAS: the OpenMP OpenBLAS, not the
# pthread one. wordnet-base is the demo corpus (the tiny preset trains on its glosses).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-openmp, wordnet-base")
# h5py reads the run logs and checkpoints from Python (docs/run-log.md); not needed to run.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-h5py")
# Files 0644, folders and programs 0755, as Debian policy asks.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
