// AnalysisView is an interface; this file gives moc a translation unit for its signal.
#include "app/gui/panels/analysis_view.h"
